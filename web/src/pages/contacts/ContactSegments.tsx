import { Anchor, Group, Paper, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';

/** The segments the contact is in now (GET /contacts/{id}/segments: live, as segment counts are). */
export function ContactSegments({ contactId }: { contactId: string }) {
  const project = useProject();
  const segments = useQuery({
    queryKey: ['contact-segments', project.id, contactId],
    queryFn: () => call(api.GET('/contacts/{id}/segments', { params: { path: { id: contactId } } })),
  });
  const items = segments.data?.data ?? [];
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="segments-title">
      <Title order={2} size="h4" id="segments-title" mb="sm">
        Segments{items.length > 0 ? ` (${items.length})` : ''}
      </Title>
      {segments.isPending && <Loading rows={2} label="Loading segments" />}
      {segments.isError && <LoadError error={segments.error} what="the segments" retry={() => segments.refetch()} />}
      {segments.isSuccess && items.length === 0 && <Text size="sm">In no segment.</Text>}
      {items.length > 0 && (
        <ul aria-label="Segments of this contact" style={{ margin: 0, paddingLeft: 0, listStyle: 'none' }}>
          {items.map((segment) => (
            <li key={segment.id}>
              <Group gap="xs" py={4}>
                <Anchor component={Link} to={projectPath(project.id, 'segments', segment.id)} size="sm">
                  {segment.name}
                </Anchor>
                <StatusBadge tone={segment.type === 'DYNAMIC' ? 'info' : 'neutral'}>{segment.type === 'DYNAMIC' ? 'Dynamic' : 'Static'}</StatusBadge>
              </Group>
            </li>
          ))}
        </ul>
      )}
    </Paper>
  );
}
