import { Anchor, Button, Paper, Text, Title } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { StatusBadge, type Tone } from '../../ui/StatusBadge.tsx';

const PAGE_SIZE = 20;

const fetchPage = (id: string, cursor: string | undefined) => call(api.GET('/contacts/{id}/executions', { params: { path: { id }, query: { limit: PAGE_SIZE, cursor } } }));
type Execution = Awaited<ReturnType<typeof fetchPage>>['data'][number];

const STATUS: Record<Execution['status'], { tone: Tone; label: string }> = {
  RUNNING: { tone: 'info', label: 'Running' },
  WAITING: { tone: 'warn', label: 'Waiting' },
  COMPLETED: { tone: 'good', label: 'Completed' },
  EXITED: { tone: 'neutral', label: 'Exited' },
  FAILED: { tone: 'bad', label: 'Failed' },
  CANCELLED: { tone: 'neutral', label: 'Cancelled' },
};

const when = (iso: string | null) => (iso ? <time dateTime={iso}>{new Date(iso).toLocaleString()}</time> : '—');

/** The contact's executions of every workflow, newest first (GET /contacts/{id}/executions). */
export function ContactExecutions({ contactId }: { contactId: string }) {
  const project = useProject();
  const executions = useInfiniteQuery({
    queryKey: ['contact-executions', project.id, contactId],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => fetchPage(contactId, pageParam),
    getNextPageParam: (last) => (last.hasMore ? (last.cursor ?? undefined) : undefined),
  });
  const items = executions.data?.pages.flatMap((page) => page.data) ?? [];
  const total = executions.data?.pages[0]?.total ?? 0;
  const columns: Column<Execution>[] = [
    {
      key: 'workflow',
      header: 'Workflow',
      rowHeader: true,
      cell: (e) => (
        <Anchor component={Link} to={projectPath(project.id, 'workflows', e.workflowId)} size="sm">
          {e.workflowName}
        </Anchor>
      ),
    },
    { key: 'status', header: 'Status', cell: (e) => <StatusBadge tone={STATUS[e.status].tone}>{STATUS[e.status].label}</StatusBadge> },
    { key: 'started', header: 'Started', cell: (e) => <Text size="sm">{when(e.startedAt)}</Text> },
    { key: 'ended', header: 'Ended', cell: (e) => <Text size="sm">{when(e.completedAt)}</Text> },
    { key: 'why', header: 'Note', cell: (e) => <Text size="sm">{e.error ?? e.exitReason ?? ''}</Text> },
  ];
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="executions-title">
      <Title order={2} size="h4" id="executions-title" mb="sm">
        Workflows{total > 0 ? ` (${total.toLocaleString()})` : ''}
      </Title>
      {executions.isPending && <Loading rows={2} label="Loading workflow executions" />}
      {executions.isError && <LoadError error={executions.error} what="the workflow executions" retry={() => executions.refetch()} />}
      {executions.isSuccess && items.length === 0 && <Text size="sm">No workflow has run for this contact.</Text>}
      {items.length > 0 && (
        <DataTable label="Workflow executions of this contact" rows={items} rowKey={(e) => e.id} columns={columns} busy={executions.isFetching} minWidth={600} />
      )}
      {executions.hasNextPage && (
        <Button variant="default" mt="sm" onClick={() => executions.fetchNextPage()} loading={executions.isFetchingNextPage}>
          Load older executions
        </Button>
      )}
    </Paper>
  );
}
