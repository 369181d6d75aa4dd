import { Anchor, Button, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { type Segment, segmentKeys, TYPE_LABELS } from './segments.ts';

/** /p/{id}/segments: every segment with its type, cached member count and whether membership is tracked. */
export function Component() {
  const project = useProject();
  const segments = useQuery({ queryKey: segmentKeys.list(project.id), queryFn: () => call(api.GET('/segments')) });
  const rows = [...(segments.data ?? [])].sort((a, b) => a.name.localeCompare(b.name));
  const columns: Column<Segment>[] = [
    {
      key: 'name',
      header: 'Name',
      rowHeader: true,
      cell: (segment) => (
        <>
          <Anchor component={Link} to={projectPath(project.id, 'segments', segment.id)} fw={600}>
            {segment.name}
          </Anchor>
          {segment.description && (
            <Text size="xs" c="dimmed" lineClamp={1}>
              {segment.description}
            </Text>
          )}
        </>
      ),
    },
    { key: 'type', header: 'Type', cell: (segment) => <StatusBadge tone={segment.type === 'DYNAMIC' ? 'info' : 'neutral'}>{TYPE_LABELS[segment.type]}</StatusBadge> },
    { key: 'members', header: 'Members', cell: (segment) => <Text size="sm">{segment.memberCount.toLocaleString()}</Text> },
    { key: 'tracked', header: 'Membership tracked', cell: (segment) => <Text size="sm">{segment.trackMembership ? 'Yes' : 'No'}</Text> },
    { key: 'updated', header: 'Updated', cell: (segment) => <Text size="sm">{new Date(segment.updatedAt).toLocaleString()}</Text> },
  ];
  return (
    <Stack maw={1200}>
      <PageHeader
        title="Segments"
        description="Groups of contacts: dynamic ones follow a condition on their data and activity, static ones hold the contacts you put in."
        actions={
          <Button component={Link} to={projectPath(project.id, 'segments', 'new')}>
            New segment
          </Button>
        }
      />
      {segments.isError && <LoadError error={segments.error} what="the segments" retry={() => segments.refetch()} />}
      {segments.isPending && <Loading rows={5} label="Loading segments" />}
      {segments.data && rows.length === 0 && <EmptyState title="No segment yet">Create one to send a campaign to part of your contacts.</EmptyState>}
      {rows.length > 0 && <DataTable label="Segments" rows={rows} rowKey={(s) => s.id} columns={columns} busy={segments.isFetching} />}
    </Stack>
  );
}
