import { Anchor, Button, Stack, Text } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { mailbox } from '../emails/emails.ts';
import { attachmentCount } from './inbound.ts';

const PAGE_SIZE = 25;

/** Mail received at the project's domains, newest first (GET /inbound; docs/inbound.md). */
export function Component() {
  const project = useProject();
  const messages = useInfiniteQuery({
    queryKey: ['inbound', project.id],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => call(api.GET('/inbound', { params: { query: { limit: PAGE_SIZE, cursor: pageParam } } })),
    getNextPageParam: (last) => (last.hasMore ? (last.cursor ?? undefined) : undefined),
  });
  const items = messages.data?.pages.flatMap((page) => page.data) ?? [];
  const total = messages.data?.pages[0]?.total ?? 0;

  return (
    <Stack maw={1100}>
      <PageHeader
        title="Inbound"
        description={
          <>
            Mail received at your domains. Turn it on per domain on the{' '}
            <Anchor component={Link} to={projectPath(project.id, 'domains')} underline="always">
              Domains
            </Anchor>{' '}
            page; each message is an email.received event on its sender's contact, so it can start workflows and reach your webhooks.
          </>
        }
      />
      {messages.isPending && <Loading rows={5} label="Loading received mail" />}
      {messages.isError && <LoadError error={messages.error} what="received mail" retry={() => messages.refetch()} />}
      {messages.isSuccess && items.length === 0 && (
        <EmptyState title="No mail received yet">Turn inbound mail on for a verified domain and point its MX at this server.</EmptyState>
      )}
      {items.length > 0 && (
        <>
          <Text size="sm" c="dimmed">
            {total.toLocaleString()} message{total === 1 ? '' : 's'}
          </Text>
          <DataTable
            label="Received mail"
            minWidth={720}
            rows={items}
            rowKey={(message) => message.id}
            columns={[
              {
                key: 'subject',
                header: 'Subject',
                cell: (message) => (
                  <>
                    <Anchor component={Link} to={projectPath(project.id, 'inbound', message.id)} size="sm" style={{ wordBreak: 'break-word' }}>
                      {message.subject || '(no subject)'}
                    </Anchor>
                    <Text size="xs" c="dimmed">
                      {[message.emailId && 'reply', attachmentCount(message.attachments)].filter(Boolean).join(' · ')}
                    </Text>
                  </>
                ),
              },
              {
                key: 'from',
                header: 'From',
                cell: (message) =>
                  message.contact ? (
                    <Anchor component={Link} to={projectPath(project.id, 'contacts', message.contact.id)} size="sm" style={{ wordBreak: 'break-all' }}>
                      {mailbox(message.from)}
                    </Anchor>
                  ) : (
                    <Text size="sm">{mailbox(message.from) || message.mailFrom || '(no sender)'}</Text>
                  ),
              },
              {
                key: 'to',
                header: 'To',
                cell: (message) => (
                  <Text size="sm" style={{ wordBreak: 'break-all' }}>
                    {message.to.join(', ')}
                  </Text>
                ),
              },
              {
                key: 'received',
                header: 'Received',
                cell: (message) => (
                  <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                    <time dateTime={message.receivedAt}>{new Date(message.receivedAt).toLocaleString()}</time>
                  </Text>
                ),
              },
            ]}
          />
        </>
      )}
      {messages.hasNextPage && (
        <Button variant="default" onClick={() => messages.fetchNextPage()} loading={messages.isFetchingNextPage} style={{ alignSelf: 'flex-start' }}>
          Load older mail
        </Button>
      )}
    </Stack>
  );
}
