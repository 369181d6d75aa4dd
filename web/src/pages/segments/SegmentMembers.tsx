import { Anchor, Button, Checkbox, Group, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Pager } from '../../ui/Pager.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { parseAddresses, type Segment, segmentKeys } from './segments.ts';

const PAGE_SIZE = 25;
const MAX_PER_CALL = 1000;
type Member = { id: string; email: string; subscribed: boolean; data: Record<string, unknown>; createdAt: string };

const shown = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));

/** The segment's members, paged, with their data as columns; a static segment's members are added by pasting addresses and removed by choice. */
export function SegmentMembers({ segment }: { segment: Segment }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [pasted, setPasted] = useState('');
  const [createMissing, setCreateMissing] = useState(false);
  const members = useQuery({
    queryKey: segmentKeys.members(project.id, segment.id, page),
    queryFn: () => call(api.GET('/segments/{id}/contacts', { params: { path: { id: segment.id }, query: { page, pageSize: PAGE_SIZE } } })),
    placeholderData: keepPreviousData,
  });
  const refresh = () => queryClient.invalidateQueries({ queryKey: segmentKeys.all(project.id) });
  const add = useMutation({
    mutationFn: async (emails: string[]) => {
      const result = { added: 0, created: 0, notFound: [] as string[] };
      for (let i = 0; i < emails.length; i += MAX_PER_CALL) {
        const part = await call(api.POST('/segments/{id}/members', { params: { path: { id: segment.id } }, body: { emails: emails.slice(i, i + MAX_PER_CALL), createMissing } }));
        result.added += part.added;
        result.created += part.created;
        result.notFound.push(...part.notFound);
      }
      return result;
    },
    onSuccess: async () => {
      setPasted('');
      await refresh();
    },
  });
  const remove = useMutation({
    mutationFn: (emails: string[]) => call(api.DELETE('/segments/{id}/members', { params: { path: { id: segment.id } }, body: { emails } })),
    onSuccess: async () => {
      setSelected(new Set());
      await refresh();
    },
  });
  const rows = (members.data?.data ?? []) as Member[];
  const dataKeys = [...new Set(rows.flatMap((m) => Object.keys(m.data ?? {})))].slice(0, 4);
  const totalPages = members.data ? Math.ceil(members.data.total / PAGE_SIZE) : 0;
  const isStatic = segment.type === 'STATIC';
  const addresses = parseAddresses(pasted);

  const columns: Column<Member>[] = [
    ...(isStatic
      ? [
          {
            key: 'select',
            width: 40,
            header: '',
            cell: (m: Member) => (
              <Checkbox
                aria-label={`Select ${m.email}`}
                checked={selected.has(m.email)}
                onChange={() =>
                  setSelected((current) => {
                    const next = new Set(current);
                    if (!next.delete(m.email)) next.add(m.email);
                    return next;
                  })
                }
              />
            ),
          },
        ]
      : []),
    {
      key: 'email',
      header: 'Email',
      cell: (m) => (
        <Anchor component={Link} to={projectPath(project.id, 'contacts', m.id)} style={{ wordBreak: 'break-all' }}>
          {m.email}
        </Anchor>
      ),
    },
    { key: 'subscribed', header: 'Subscription', cell: (m) => <StatusBadge tone={m.subscribed ? 'good' : 'neutral'}>{m.subscribed ? 'Subscribed' : 'Unsubscribed'}</StatusBadge> },
    ...dataKeys.map((key) => ({ key: `data.${key}`, header: key, cell: (m: Member) => <Text size="sm">{shown(m.data?.[key])}</Text> })),
  ];

  return (
    <Stack component="section" aria-labelledby="members-title">
      <Title order={2} size="h3" id="members-title">
        Members{members.data ? ` (${members.data.total.toLocaleString()})` : ''}
      </Title>
      {isStatic && (
        <Paper withBorder p="md" radius="md">
          <Stack gap="xs">
            <Textarea
              label="Add members"
              description="Paste addresses: one per line, or separated by commas."
              autosize
              minRows={3}
              maxRows={10}
              value={pasted}
              onChange={(e) => setPasted(e.currentTarget.value)}
            />
            <Checkbox label="Create contacts for addresses that are not contacts yet" checked={createMissing} onChange={(e) => setCreateMissing(e.currentTarget.checked)} />
            <Group>
              <Button disabled={addresses.length === 0} loading={add.isPending} onClick={() => add.mutate(addresses)}>
                Add {addresses.length > 0 ? addresses.length.toLocaleString() : ''} address{addresses.length === 1 ? '' : 'es'}
              </Button>
              {selected.size > 0 && (
                <Button variant="default" color="red" loading={remove.isPending} onClick={() => remove.mutate([...selected])}>
                  Remove {selected.size} selected
                </Button>
              )}
            </Group>
            {add.data && (
              <Text size="sm" role="status">
                Added {add.data.added}, created {add.data.created}.{add.data.notFound.length > 0 && ` Not contacts (not added): ${add.data.notFound.join(', ')}.`}
              </Text>
            )}
            <ErrorMessage error={add.error ?? remove.error} />
          </Stack>
        </Paper>
      )}
      {members.isError && <LoadError error={members.error} what="the members" retry={() => members.refetch()} />}
      {members.data && rows.length === 0 && (
        <EmptyState title="No member">{isStatic ? 'Paste addresses above to add contacts.' : 'No contact matches the condition now.'}</EmptyState>
      )}
      {rows.length > 0 && <DataTable label="Members" rows={rows} rowKey={(m) => m.id} columns={columns} busy={members.isFetching} />}
      <Pager page={page} totalPages={totalPages} onPage={setPage} waiting={members.isPlaceholderData} />
    </Stack>
  );
}
