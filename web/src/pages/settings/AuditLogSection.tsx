import { Button, Code, NativeSelect, Text } from '@mantine/core';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { Section } from './Section.tsx';
import { isManager, time } from './settings.ts';

/** The actions the server audits (audit entries' `action`), readable. */
const ACTIONS: Record<string, string> = {
  'member.added': 'Member added',
  'member.invited': 'Member invited',
  'member.removed': 'Member removed',
  'member.role_changed': 'Role changed',
  'project.renamed': 'Project renamed',
  'project.keys_rotated': 'API keys rotated',
  'project.api_key_created': 'API key created',
  'project.api_key_revoked': 'API key revoked',
  'project.tracking_changed': 'Tracking changed',
  'project.two_factor_requirement_changed': 'Two-factor requirement changed',
  'project.disabled': 'Project disabled',
  'project.enabled': 'Project enabled',
  'project.marketing_paused': 'Marketing mail paused',
  'project.marketing_resumed': 'Marketing mail resumed',
  'project.reset': 'Project reset',
  'billing.limits_changed': 'Billing limits changed',
  'suppression.added': 'Address suppressed',
  'suppression.removed': 'Suppression removed',
};
const FILTERS = [{ value: '', label: 'All actions' }, ...Object.entries(ACTIONS).map(([value, label]) => ({ value, label }))];

/** What changed, as key: value pairs (ids and emails the entry names). */
type Entry = { id: string; createdAt: string; action: string; actor: { email: string | null } | null; details: Record<string, unknown> };

const COLUMNS: Column<Entry>[] = [
  { key: 'when', header: 'When', cell: (e) => <span style={{ whiteSpace: 'nowrap' }}>{time(e.createdAt)}</span> },
  { key: 'action', header: 'Action', cell: (e) => ACTIONS[e.action] ?? <Code>{e.action}</Code> },
  { key: 'by', header: 'By', cell: (e) => <span style={{ wordBreak: 'break-all' }}>{e.actor?.email ?? 'the service'}</span> },
  {
    key: 'details',
    header: 'Details',
    cell: (e) => (
      <Text size="xs" style={{ wordBreak: 'break-word' }}>
        {detailsText(e.details)}
      </Text>
    ),
  },
];

const detailsText = (details: Record<string, unknown>) =>
  Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join(' · ');

function AuditLog() {
  const project = useProject();
  const [action, setAction] = useState('');
  const log = useInfiniteQuery({
    queryKey: ['audit-log', project.id, action],
    queryFn: ({ pageParam }) =>
      call(api.GET('/projects/{id}/audit-log', { params: { path: { id: project.id }, query: { action: action || undefined, cursor: pageParam, limit: 25 } } })),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => (page.hasMore ? (page.cursor ?? undefined) : undefined),
    // Another filter keeps the rows on screen until its own arrive: no flash of the empty state.
    placeholderData: keepPreviousData,
  });
  const entries = log.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <>
      <NativeSelect label="Action" data={FILTERS} value={action} onChange={(e) => setAction(e.currentTarget.value)} maw={280} />
      {log.isPending && <Loading rows={3} label="Loading the audit log" />}
      {log.isError && <LoadError error={log.error} what="the audit log" retry={() => log.refetch()} />}
      {log.isSuccess && entries.length === 0 && <EmptyState title="Nothing recorded yet">Member, key, billing and project changes appear here.</EmptyState>}
      {entries.length > 0 && <DataTable label="Audit log" rows={entries} rowKey={(e) => e.id} columns={COLUMNS} busy={log.isFetching} minWidth={640} />}
      {log.hasNextPage && (
        <Button variant="default" onClick={() => log.fetchNextPage()} loading={log.isFetchingNextPage} style={{ alignSelf: 'center' }}>
          Load older entries
        </Button>
      )}
    </>
  );
}

/** Administrative actions, newest first (OWNER or ADMIN). */
export function AuditLogSection() {
  const project = useProject();
  return (
    <Section id="audit" title="Audit log" description="Who changed members, keys, limits and the project, and when.">
      {isManager(project.role) ? (
        <AuditLog />
      ) : (
        <Text size="sm" c="dimmed">
          Only an owner or admin can read the audit log.
        </Text>
      )}
    </Section>
  );
}
