import { Anchor, List, Stack, Text } from '@mantine/core';
import { Link, useLocation } from 'react-router';
import { PageHeader } from '../ui/PageHeader.tsx';
import { NAV_ITEMS } from './nav.ts';
import { projectPath, useProject } from './project.ts';

/** An unknown address inside a project: said inside the shell, with the sidebar and the pages there are. */
export function Component() {
  const project = useProject();
  const { pathname } = useLocation();
  return (
    <Stack maw={720}>
      <PageHeader title="Page not found" description={`There is no page at ${pathname} in ${project.name}.`} />
      <Text>The link may be old, or mistyped. These are the project's pages:</Text>
      <List spacing={4}>
        {NAV_ITEMS.map((item) => (
          <List.Item key={item.path}>
            <Anchor component={Link} to={projectPath(project.id, ...(item.path ? [item.path] : []))}>
              {item.label}
            </Anchor>
          </List.Item>
        ))}
      </List>
    </Stack>
  );
}
