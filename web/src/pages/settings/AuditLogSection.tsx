import { Button, Code, NativeSelect, Table, Text } from '@mantine/core';
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { TableScroll } from '../../ui/TableScroll.tsx';
import { Section } from './Section.tsx';
import { isManager, time } from './settings.ts';

/** The actions the server audits (audit entries' `action`), readable. */
const ACTIONS: Record<string, string> = {
  'member.added': 'Member added',
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
  'project.reset': 'Project reset',
  'billing.limits_changed': 'Billing limits changed',
  'suppression.added': 'Address suppressed',
  'suppression.removed': 'Suppression removed',
};
const FILTERS = [{ value: '', label: 'All actions' }, ...Object.entries(ACTIONS).map(([value, label]) => ({ value, label }))];

/** What changed, as key: value pairs (ids and emails the entry names). */
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
      {entries.length > 0 && (
        <TableScroll minWidth={640} label="Audit log">
          <Table verticalSpacing="xs" aria-label="Audit log">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>When</Table.Th>
                <Table.Th>Action</Table.Th>
                <Table.Th>By</Table.Th>
                <Table.Th>Details</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {entries.map((entry) => (
                <Table.Tr key={entry.id}>
                  <Table.Td style={{ whiteSpace: 'nowrap' }}>{time(entry.createdAt)}</Table.Td>
                  <Table.Td>{ACTIONS[entry.action] ?? <Code>{entry.action}</Code>}</Table.Td>
                  <Table.Td style={{ wordBreak: 'break-all' }}>{entry.actor?.email ?? 'the service'}</Table.Td>
                  <Table.Td>
                    <Text size="xs" style={{ wordBreak: 'break-word' }}>
                      {detailsText(entry.details)}
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
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
