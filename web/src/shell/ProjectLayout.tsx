import { Alert, Anchor, AppShell, Burger, Center, Group, Loader, NavLink, ScrollArea, Stack, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useEffect } from 'react';
import { Link, Navigate, Outlet, NavLink as RouterNavLink, useLocation, useParams } from 'react-router';
import { setCurrentProject } from '../api/client.ts';
import { useMe, useProjects } from '../api/session.ts';
import { LoadError } from '../ui/LoadError.tsx';
import { rememberProject } from './HomeRedirect.tsx';
import { NAV_ITEMS } from './nav.ts';
import { ProjectSwitcher } from './ProjectSwitcher.tsx';
import { ProjectContext, projectPath } from './project.ts';
import { UserMenu } from './UserMenu.tsx';

/** The frame of every project page: header with project switcher and user menu, side navigation. */
export function ProjectLayout() {
  const { projectId = '' } = useParams();
  const location = useLocation();
  const [navOpen, { toggle, close }] = useDisclosure(false);
  // Before any child renders, so every call of this page names the project.
  setCurrentProject(projectId);
  const me = useMe();
  const projects = useProjects(me.isSuccess);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new path is the trigger that closes the menu
  useEffect(() => close(), [location.pathname, close]);
  useEffect(() => rememberProject(projectId), [projectId]);

  if (me.isError) return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  if (projects.isError) return <LoadError error={projects.error} what="your projects" />;
  if (!me.data || !projects.data) {
    return (
      <Center mih="100vh">
        <Loader aria-label="Loading" />
      </Center>
    );
  }
  const project = projects.data.find((p) => p.id === projectId);
  if (!project) {
    return (
      <Center component="main" mih="100vh" p="md">
        <Stack maw={480}>
          <Alert color="red" title="Project not found" role="alert">
            This project does not exist or you are not one of its members.
          </Alert>
          <Anchor component={Link} to="/">
            Open one of your projects
          </Anchor>
        </Stack>
      </Center>
    );
  }

  return (
    <ProjectContext.Provider value={project}>
      <AppShell header={{ height: 60 }} navbar={{ width: 230, breakpoint: 'sm', collapsed: { mobile: !navOpen } }} padding="md">
        <AppShell.Header>
          <Group h="100%" px="md" justify="space-between" wrap="nowrap">
            <Group gap="sm" wrap="nowrap">
              <Burger opened={navOpen} onClick={toggle} hiddenFrom="sm" size="sm" aria-label={navOpen ? 'Close navigation' : 'Open navigation'} />
              <Text fw={700} visibleFrom="xs">
                Mailroom
              </Text>
              <ProjectSwitcher projects={projects.data} current={project} />
            </Group>
            <UserMenu email={me.data.email} />
          </Group>
        </AppShell.Header>
        <AppShell.Navbar p="xs" aria-label="Project pages">
          <ScrollArea>
            {NAV_ITEMS.map((item) => (
              <NavLink key={item.path} component={RouterNavLink} to={projectPath(projectId, item.path).replace(/\/$/, '')} end={item.path === ''} label={item.label} />
            ))}
          </ScrollArea>
        </AppShell.Navbar>
        <AppShell.Main>
          <Outlet />
        </AppShell.Main>
      </AppShell>
    </ProjectContext.Provider>
  );
}
