import { Anchor, Button, Group, Paper, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { CursorPager } from '../../ui/CursorPager.tsx';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { isManager } from '../settings/settings.ts';
import { AddSuppressionForm } from './AddSuppressionForm.tsx';
import { RemoveSuppressionButton } from './RemoveSuppressionButton.tsx';
import { REASON_HELP, REASON_LABELS, type Suppression, suppressionKeys } from './suppressions.ts';

const PAGE_SIZE = 50;

/**
 * /p/{id}/suppressions: the addresses never sent to again (docs/decisions/suppressions.md), newest
 * first, searchable; every member adds, OWNER and ADMIN remove.
 */
export function Component() {
  const project = useProject();
  const [search, setSearch] = useState('');
  const [debounced] = useDebouncedValue(search.trim(), 300);
  // The cursors of the pages seen so far.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = cursors.length - 1;
  const fetchPage = (cursor: string | undefined) => () => call(api.GET('/suppressions', { params: { query: { limit: PAGE_SIZE, cursor, search: debounced || undefined } } }));
  const list = useQuery({ queryKey: suppressionKeys.page(project.id, debounced, cursors[page]), queryFn: fetchPage(cursors[page]), placeholderData: keepPreviousData });
  // `total` comes with the first page only: later pages read it from the (cached) first page.
  const first = useQuery({ queryKey: suppressionKeys.page(project.id, debounced, undefined), queryFn: fetchPage(undefined), placeholderData: keepPreviousData });
  const total = first.isPlaceholderData ? undefined : first.data?.total;
  const mayRemove = isManager(project.role);
  const rows = list.data?.data ?? [];
  const columns: Column<Suppression>[] = [
    {
      key: 'email',
      header: 'Address',
      rowHeader: true,
      cell: (s) => (
        <Text size="sm" style={{ wordBreak: 'break-all' }}>
          {s.email}
        </Text>
      ),
    },
    {
      key: 'reason',
      header: 'Reason',
      cell: (s) => (
        <StatusBadge tone={s.reason === 'MANUAL' ? 'neutral' : 'bad'} label={`${REASON_LABELS[s.reason]}: ${REASON_HELP[s.reason]}`}>
          {REASON_LABELS[s.reason]}
        </StatusBadge>
      ),
    },
    { key: 'since', header: 'Since', cell: (s) => <Text size="sm">{new Date(s.createdAt).toLocaleString()}</Text> },
    {
      key: 'email-record',
      header: 'Email',
      cell: (s) =>
        s.emailId ? (
          <Anchor component={Link} to={projectPath(project.id, 'emails', s.emailId)} size="sm">
            The message that {s.reason === 'COMPLAINT' ? 'was reported' : 'bounced'}
          </Anchor>
        ) : (
          <Text size="sm" c="dimmed">
            —
          </Text>
        ),
    },
    { key: 'remove', header: 'Action', cell: (s) => <RemoveSuppressionButton entry={s} allowed={mayRemove} /> },
  ];
  const searching = debounced.length > 0;
  return (
    <Stack maw={1200}>
      <PageHeader
        title="Suppression list"
        description="Addresses this project never sends to again: hard bounces and spam complaints are added on their own, and you can add any address. Mail to them is recorded as Suppressed and does not leave."
      />
      <Paper withBorder p="md" radius="md">
        <AddSuppressionForm />
      </Paper>
      <TextInput
        label="Search addresses"
        type="search"
        placeholder="@example.com"
        value={search}
        onChange={(e) => {
          setSearch(e.currentTarget.value);
          setCursors([undefined]);
        }}
        maw={480}
      />
      {!mayRemove && (
        <Text size="sm" c="dimmed">
          Your role ({project.role}) can add addresses. Only an owner or admin removes one: mailing an address that bounced or complained again puts the sending domain at risk.
        </Text>
      )}
      {list.isError && <LoadError error={list.error} what="the suppression list" retry={() => list.refetch()} />}
      {list.isPending && <Loading rows={5} label="Loading the suppression list" />}
      {list.data && rows.length === 0 && (
        <EmptyState title={searching ? 'No address matches' : 'No suppressed address'}>
          {searching ? 'Change the search.' : 'Addresses that bounce hard or complain appear here on their own.'}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <>
          {total !== undefined && (
            <Text size="sm" role="status">
              {total.toLocaleString()} address{total === 1 ? '' : 'es'} {searching ? 'match' : 'suppressed'}.
            </Text>
          )}
          <DataTable label="Suppressed addresses" rows={rows} rowKey={(s) => s.email} columns={columns} busy={list.isFetching} minWidth={640} />
        </>
      )}
      {list.data && (
        <CursorPager
          page={page}
          hasMore={list.data.hasMore}
          canGoOn={Boolean(list.data.cursor) && !list.isPlaceholderData}
          onPrevious={() => setCursors((c) => c.slice(0, -1))}
          onNext={() => setCursors((c) => [...c, list.data!.cursor ?? undefined])}
        />
      )}
    </Stack>
  );
}
