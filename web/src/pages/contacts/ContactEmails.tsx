import { Anchor, Button, Paper, Text, Title } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { STATUS_TONE } from '../emails/emails.ts';

const PAGE_SIZE = 20;
const fetchPage = (id: string, cursor: string | undefined) => call(api.GET('/contacts/{id}/emails', { params: { path: { id }, query: { limit: PAGE_SIZE, cursor } } }));
type Email = Awaited<ReturnType<typeof fetchPage>>['data'][number];

/** The contact's email records, newest first, a page at a time (GET /contacts/{id}/emails). */
export function ContactEmails({ contactId }: { contactId: string }) {
  const project = useProject();
  const emails = useInfiniteQuery({
    queryKey: ['contact-emails', project.id, contactId],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => fetchPage(contactId, pageParam),
    getNextPageParam: (last) => (last.hasMore ? (last.cursor ?? undefined) : undefined),
  });
  const items = emails.data?.pages.flatMap((page) => page.data) ?? [];
  const total = emails.data?.pages[0]?.total ?? 0;
  const columns: Column<Email>[] = [
    {
      key: 'subject',
      header: 'Subject',
      rowHeader: true,
      cell: (email) => (
        <Anchor component={Link} to={projectPath(project.id, 'emails', email.id)} size="sm" style={{ wordBreak: 'break-word' }}>
          {email.subject ?? '(no subject)'}
        </Anchor>
      ),
    },
    { key: 'status', header: 'Status', cell: (email) => <StatusBadge tone={STATUS_TONE[email.status]}>{email.status}</StatusBadge> },
    {
      key: 'sent',
      header: 'Sent',
      cell: (email) => (
        <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
          <time dateTime={email.sentAt ?? email.createdAt}>{new Date(email.sentAt ?? email.createdAt).toLocaleString()}</time>
        </Text>
      ),
    },
  ];

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="emails-title">
      <Title order={2} size="h4" id="emails-title" mb="sm">
        Emails{total > 0 ? ` (${total.toLocaleString()})` : ''}
      </Title>
      {emails.isPending && <Loading rows={3} label="Loading emails" />}
      {emails.isError && <LoadError error={emails.error} what="the emails" retry={() => emails.refetch()} />}
      {emails.isSuccess && items.length === 0 && <Text size="sm">No email sent to this contact yet.</Text>}
      {items.length > 0 && <DataTable label="Emails to this contact" rows={items} rowKey={(e) => e.id} columns={columns} busy={emails.isFetching} minWidth={520} />}
      {emails.hasNextPage && (
        <Button variant="default" mt="sm" onClick={() => emails.fetchNextPage()} loading={emails.isFetchingNextPage}>
          Load older emails
        </Button>
      )}
    </Paper>
  );
}
