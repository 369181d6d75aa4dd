import type { paths } from '@mailroom/client';
import { Anchor, Button, Checkbox, Group, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
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
import { AddContactButton } from './AddContactButton.tsx';
import { BulkBar } from './BulkBar.tsx';
import { DataColumnsPicker, useDataColumns } from './DataColumns.tsx';
import { FilterExport } from './FilterExport.tsx';

type Sort = 'createdAt' | 'email';
type Filter = 'all' | 'true' | 'false';
const PAGE_SIZE = 50;
type Contact = paths['/contacts']['get']['responses'][200]['content']['application/json']['data'][number];

/** A data value in a table cell: text as written, anything else as JSON, nothing as a dash. */
const shownValue = (value: unknown) => (value === undefined || value === null ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

export const contactsKey = (projectId: string) => ['contacts', projectId];

export function Component() {
  const project = useProject();
  const [search, setSearch] = useState('');
  const [debouncedSearch] = useDebouncedValue(search.trim(), 300);
  const [subscribed, setSubscribed] = useState<Filter>('all');
  const [sort, setSort] = useState<{ by: Sort; dir: 'asc' | 'desc' }>({ by: 'createdAt', dir: 'desc' });
  // The cursors of the pages seen so far: going back re-reads a page from its own cursor.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const page = cursors.length - 1;
  const [selected, setSelected] = useState<Set<string>>(new Set());
  // The condition tree of the filter (JSON text) once the server has counted it.
  const [condition, setCondition] = useState<string>();
  const applyCondition = useCallback((next: string | undefined) => {
    setCondition(next);
    setCursors([undefined]);
    setSelected(new Set());
  }, []);
  const data = useDataColumns(project.id);

  const filters = { search: debouncedSearch, subscribed, sort: sort.by, dir: sort.dir, condition };
  const contacts = useQuery({
    queryKey: [...contactsKey(project.id), filters, cursors[page]],
    queryFn: () =>
      call(
        api.GET('/contacts', {
          params: {
            query: {
              limit: PAGE_SIZE,
              cursor: cursors[page],
              search: filters.search || undefined,
              subscribed: subscribed === 'all' ? undefined : subscribed,
              sort: sort.by,
              dir: sort.dir,
              condition,
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const resetPaging = () => {
    setCursors([undefined]);
    setSelected(new Set());
  };
  const rows = contacts.data?.data ?? [];
  const allSelected = rows.length > 0 && rows.every((c) => selected.has(c.id));

  function sortBy(by: Sort) {
    setSort((current) => ({ by, dir: current.by === by && current.dir === 'asc' ? 'desc' : 'asc' }));
    resetPaging();
  }
  const columns: Column<Contact>[] = [
    {
      key: 'select',
      width: 40,
      header: (
        <Checkbox
          aria-label="Select all contacts on this page"
          checked={allSelected}
          indeterminate={!allSelected && rows.some((c) => selected.has(c.id))}
          onChange={() => setSelected(allSelected ? new Set() : new Set(rows.map((c) => c.id)))}
        />
      ),
      cell: (contact) => (
        <Checkbox
          aria-label={`Select ${contact.email}`}
          checked={selected.has(contact.id)}
          onChange={() =>
            setSelected((current) => {
              const next = new Set(current);
              if (!next.delete(contact.id)) next.add(contact.id);
              return next;
            })
          }
        />
      ),
    },
    {
      key: 'email',
      header: 'Email',
      sortable: true,
      cell: (contact) => (
        <Anchor component={Link} to={projectPath(project.id, 'contacts', contact.id)} style={{ wordBreak: 'break-all' }}>
          {contact.email}
        </Anchor>
      ),
    },
    {
      key: 'subscription',
      header: 'Subscription',
      cell: (contact) => <StatusBadge tone={contact.subscribed ? 'good' : 'neutral'}>{contact.subscribed ? 'Subscribed' : 'Unsubscribed'}</StatusBadge>,
    },
    ...data.columns.map(
      (key): Column<Contact> => ({
        key: `data.${key}`,
        header: key,
        cell: (contact) => <Text size="sm">{shownValue(contact.data[key])}</Text>,
      }),
    ),
    { key: 'createdAt', header: 'Created', sortable: true, cell: (contact) => <Text size="sm">{new Date(contact.createdAt).toLocaleString()}</Text> },
  ];

  return (
    <Stack maw={1200}>
      <PageHeader
        title="Contacts"
        description={contacts.data ? `${contacts.data.total.toLocaleString()} contact${contacts.data.total === 1 ? '' : 's'} match.` : 'The people you send to.'}
        actions={
          <>
            <AddContactButton />
            <Button component={Link} to={projectPath(project.id, 'contacts', 'import')} variant="default">
              Import CSV
            </Button>
            <Button component={Link} to={projectPath(project.id, 'contacts', 'fields')} variant="default">
              Custom fields
            </Button>
          </>
        }
      />
      <Group align="flex-end" gap="sm">
        <TextInput
          label="Search by email"
          type="search"
          placeholder="ada@"
          value={search}
          onChange={(e) => {
            setSearch(e.currentTarget.value);
            resetPaging();
          }}
          flex={1}
          miw={200}
        />
        <Stack gap={4}>
          <Text size="sm" fw={500} id="subscribed-filter">
            Subscription
          </Text>
          <SegmentedControl
            aria-labelledby="subscribed-filter"
            value={subscribed}
            onChange={(v) => {
              setSubscribed(v as Filter);
              resetPaging();
            }}
            data={[
              { value: 'all', label: 'All' },
              { value: 'true', label: 'Subscribed' },
              { value: 'false', label: 'Unsubscribed' },
            ]}
          />
        </Stack>
        <DataColumnsPicker keys={data.keys} columns={data.columns} onChange={data.choose} />
      </Group>
      <FilterExport onApply={applyCondition} />
      <BulkBar selected={[...selected]} onDone={() => setSelected(new Set())} />
      {contacts.isError && <LoadError error={contacts.error} what="the contacts" retry={() => contacts.refetch()} />}
      {contacts.isPending && <Loading rows={8} label="Loading contacts" />}
      {contacts.data && rows.length === 0 && (
        <EmptyState title={filters.search || subscribed !== 'all' || condition ? 'No contact matches' : 'No contact yet'}>
          {filters.search || subscribed !== 'all' || condition ? 'Change the search or the filter.' : 'Contacts appear when you track an event, send an email or import a CSV.'}
        </EmptyState>
      )}
      {rows.length > 0 && (
        <DataTable label="Contacts" rows={rows} rowKey={(c) => c.id} columns={columns} busy={contacts.isFetching} sort={sort} onSort={(by) => sortBy(by as Sort)} />
      )}
      {contacts.data && (
        <CursorPager
          page={page}
          hasMore={contacts.data.hasMore}
          canGoOn={Boolean(contacts.data.cursor) && !contacts.isPlaceholderData}
          onPrevious={() => setCursors((c) => c.slice(0, -1))}
          onNext={() => setCursors((c) => [...c, contacts.data!.cursor ?? undefined])}
        />
      )}
    </Stack>
  );
}
