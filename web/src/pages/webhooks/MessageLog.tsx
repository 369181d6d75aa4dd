import { Accordion, Button, Code, Group, Paper, SegmentedControl, Stack, Text, Title } from '@mantine/core';
import { useInfiniteQuery, useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { StatusBadge, type Tone } from '../../ui/StatusBadge.tsx';
import { fetchMessages, type Message, type MessageStatus, time, webhookKeys } from './webhooks.ts';

const STATUS: Record<MessageStatus, { label: string; tone: Tone }> = {
  pending: { label: 'Pending', tone: 'warn' },
  succeeded: { label: 'Succeeded', tone: 'good' },
  failed: { label: 'Failed', tone: 'bad' },
};
const FILTERS = [
  { value: 'all', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'succeeded', label: 'Succeeded' },
  { value: 'failed', label: 'Failed' },
];

type Attempt = Message['attempts'][number];
const ATTEMPT_COLUMNS: Column<Attempt>[] = [
  { key: 'at', header: 'At', cell: (a) => <span style={{ whiteSpace: 'nowrap' }}>{time(a.at)}</span> },
  {
    key: 'answer',
    header: 'Answer',
    cell: (a) => <StatusBadge tone={a.statusCode && a.statusCode < 300 ? 'good' : 'bad'}>{a.statusCode ? String(a.statusCode) : 'No answer'}</StatusBadge>,
  },
  { key: 'duration', header: 'Duration', cell: (a) => <span style={{ whiteSpace: 'nowrap' }}>{a.durationMs} ms</span> },
  {
    key: 'response',
    header: 'Response',
    cell: (a) =>
      a.response ? (
        <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: 160, overflow: 'auto' }}>
          {a.response}
        </Code>
      ) : (
        <Text size="sm" c="dimmed">
          empty
        </Text>
      ),
  },
];

function Attempts({ message }: { message: Message }) {
  if (message.attempts.length === 0) return <Text size="sm">No attempt yet. {message.nextAttemptAt && `The first leaves at ${time(message.nextAttemptAt)}.`}</Text>;
  return <DataTable label={`Attempts of message ${message.id}`} minWidth={520} rows={message.attempts} rowKey={(a) => a.at} columns={ATTEMPT_COLUMNS} />;
}

function MessageItem({ endpointId, message, mayReplay }: { endpointId: string; message: Message; mayReplay: boolean }) {
  const project = useProject();
  const queryClient = useQueryClient();
  const replay = useMutation({
    mutationFn: () => call(api.POST('/webhook-endpoints/{id}/messages/{messageId}/replay', { params: { path: { id: endpointId, messageId: message.id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhook-endpoints', project.id, endpointId, 'messages'] }),
  });
  const status = STATUS[message.status];
  const last = message.attempts.at(-1);
  return (
    <Accordion.Item value={message.id}>
      <Accordion.Control>
        <Group gap="xs" wrap="wrap">
          <StatusBadge tone={status.tone}>{status.label}</StatusBadge>
          <Text size="sm" ff="monospace" fw={600} style={{ wordBreak: 'break-all' }}>
            {message.type}
          </Text>
          <Text size="xs" c="dimmed">
            {time(message.createdAt)} · {message.attempts.length} {message.attempts.length === 1 ? 'attempt' : 'attempts'}
            {last && ` · last ${last.statusCode ?? 'no answer'}`}
          </Text>
        </Group>
      </Accordion.Control>
      <Accordion.Panel>
        <Stack gap="xs">
          <Text size="xs" c="dimmed">
            webhook-id <Code>{message.id}</Code>
            {message.nextAttemptAt && ` · next attempt ${time(message.nextAttemptAt)}`}
          </Text>
          <Attempts message={message} />
          <Group gap="xs">
            <Button size="xs" variant="default" onClick={() => replay.mutate()} loading={replay.isPending} disabled={!mayReplay}>
              Replay now
            </Button>
            {replay.isSuccess && (
              <Text size="sm" role="status">
                A new attempt is on its way.
              </Text>
            )}
          </Group>
          <ErrorMessage error={replay.error} />
        </Stack>
      </Accordion.Panel>
    </Accordion.Item>
  );
}

/** Messages to one endpoint with every attempt, newest first; refreshed while it is open. */
export function MessageLog({ endpointId, mayReplay }: { endpointId: string; mayReplay: boolean }) {
  const project = useProject();
  const [filter, setFilter] = useState('all');
  const status = filter === 'all' ? undefined : (filter as MessageStatus);
  const log = useInfiniteQuery({
    queryKey: webhookKeys.messages(project.id, endpointId, filter),
    queryFn: ({ pageParam }) => fetchMessages(endpointId, status, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => (page.hasMore ? (page.cursor ?? undefined) : undefined),
    refetchInterval: 5000,
  });
  const messages = log.data?.pages.flatMap((page) => page.data) ?? [];
  const total = log.data?.pages[0]?.total;

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="message-log-title">
      <Stack gap="sm">
        <Group justify="space-between" gap="xs">
          <Title order={2} size="h4" id="message-log-title">
            Message log{' '}
            {total !== undefined && (
              <Text span c="dimmed" size="sm">
                ({total})
              </Text>
            )}
          </Title>
          <SegmentedControl size="xs" data={FILTERS} value={filter} onChange={setFilter} aria-label="Show messages" />
        </Group>
        {log.isPending && <Loading rows={3} label="Loading messages" />}
        {log.isError && <LoadError error={log.error} what="the message log" retry={() => log.refetch()} />}
        {log.isSuccess && messages.length === 0 && (
          <EmptyState title={filter === 'all' ? 'No message yet' : `No ${filter} message`}>
            Each event this endpoint listens to becomes a message here, with every delivery attempt.
          </EmptyState>
        )}
        {messages.length > 0 && (
          <Accordion multiple variant="separated" aria-label="Messages">
            {messages.map((message) => (
              <MessageItem key={message.id} endpointId={endpointId} message={message} mayReplay={mayReplay} />
            ))}
          </Accordion>
        )}
        {log.hasNextPage && (
          <Button variant="default" onClick={() => log.fetchNextPage()} loading={log.isFetchingNextPage} style={{ alignSelf: 'center' }}>
            Load older messages
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
