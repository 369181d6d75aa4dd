import { Anchor, Button, Group, Paper, Select, Stack, Table, Text } from '@mantine/core';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';

const PAGE_SIZE = 50;
const POLL_MS = 5000;

export function Component() {
  const project = useProject();
  const [type, setType] = useState<string | null>(null);
  const types = useQuery({ queryKey: ['activity-types', project.id], queryFn: async () => (await call(api.GET('/activity/types'))).data });
  const feed = useInfiniteQuery({
    queryKey: ['activity', project.id, type],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => call(api.GET('/activity', { params: { query: { limit: PAGE_SIZE, cursor: pageParam, type: type ?? undefined } } })),
    getNextPageParam: (last) => (last.hasMore ? (last.cursor ?? undefined) : undefined),
  });
  const items = feed.data?.pages.flatMap((p) => p.data) ?? [];
  // Live: a cheap count of what arrived since the newest item shown (or since the feed loaded).
  const since = items[0]?.timestamp ?? (feed.dataUpdatedAt ? new Date(feed.dataUpdatedAt).toISOString() : undefined);
  const fresh = useQuery({
    queryKey: ['activity-recent', project.id, type, since],
    enabled: Boolean(since) && feed.isSuccess,
    queryFn: () => call(api.GET('/activity/recent-count', { params: { query: { since: since!, type: type ?? undefined } } })),
    refetchInterval: POLL_MS,
  });
  // recent-count counts from `since` inclusive: the newest shown item itself is not new.
  const newCount = Math.max(0, (fresh.data?.count ?? 0) - (items[0] ? items.filter((i) => i.timestamp === since).length : 0));

  return (
    <Stack maw={1200}>
      <PageHeader
        title="Activity"
        description="Everything that happened in this project, newest first: sends, deliveries, opens, clicks, bounces, complaints and your tracked events."
      />
      <Group align="flex-end" justify="space-between">
        <Select
          label="Type"
          placeholder="All types"
          clearable
          data={(types.data ?? []).map((t) => ({ value: t.type, label: t.type }))}
          value={type}
          onChange={setType}
          w={260}
          comboboxProps={{ withinPortal: true }}
        />
        <Group gap="xs" role="status" aria-live="polite" mih={36}>
          {newCount > 0 && (
            <Button variant="light" onClick={() => feed.refetch()}>
              Show {newCount}
              {fresh.data?.capped ? '+' : ''} new
            </Button>
          )}
          <Text size="xs" c="dimmed">
            Live: checked every {POLL_MS / 1000} s
          </Text>
        </Group>
      </Group>
      {feed.isPending && <Loading rows={8} label="Loading activity" />}
      {feed.isError && <LoadError error={feed.error} what="the activity" retry={() => feed.refetch()} />}
      {feed.isSuccess && items.length === 0 && <EmptyState title="No activity yet">Send an email or track an event: it shows here within seconds.</EmptyState>}
      {items.length > 0 && (
        <Paper withBorder radius="md">
          <Table.ScrollContainer minWidth={560}>
            <Table aria-label="Activity" verticalSpacing="xs">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>When</Table.Th>
                  <Table.Th>What</Table.Th>
                  <Table.Th>Contact</Table.Th>
                  <Table.Th>Email</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {items.map((item) => {
                  const emailId = typeof item.data.emailId === 'string' ? item.data.emailId : undefined;
                  return (
                    <Table.Tr key={item.id}>
                      <Table.Td>
                        <Text size="sm">
                          <time dateTime={item.timestamp}>{new Date(item.timestamp).toLocaleString()}</time>
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Text size="sm" ff="monospace">
                          {item.type}
                        </Text>
                      </Table.Td>
                      <Table.Td>
                        <Anchor component={Link} to={projectPath(project.id, 'contacts', item.contact.id)} size="sm" style={{ wordBreak: 'break-all' }}>
                          {item.contact.email}
                        </Anchor>
                      </Table.Td>
                      <Table.Td>
                        {emailId && (
                          <Anchor component={Link} to={projectPath(project.id, 'emails', emailId)} size="sm" aria-label={`Email record of ${item.type} for ${item.contact.email}`}>
                            Email record
                          </Anchor>
                        )}
                      </Table.Td>
                    </Table.Tr>
                  );
                })}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        </Paper>
      )}
      {feed.hasNextPage && (
        <Button variant="default" onClick={() => feed.fetchNextPage()} loading={feed.isFetchingNextPage} maw={200}>
          Load older activity
        </Button>
      )}
    </Stack>
  );
}
