import { Anchor, Button, Paper, Table, Text, Title } from '@mantine/core';
import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { TableScroll } from '../../ui/TableScroll.tsx';
import { STATUS_TONE } from '../emails/emails.ts';

const PAGE_SIZE = 20;

/** The contact's email records, newest first, a page at a time (GET /contacts/{id}/emails). */
export function ContactEmails({ contactId }: { contactId: string }) {
  const project = useProject();
  const emails = useInfiniteQuery({
    queryKey: ['contact-emails', project.id, contactId],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => call(api.GET('/contacts/{id}/emails', { params: { path: { id: contactId }, query: { limit: PAGE_SIZE, cursor: pageParam } } })),
    getNextPageParam: (last) => (last.hasMore ? (last.cursor ?? undefined) : undefined),
  });
  const items = emails.data?.pages.flatMap((page) => page.data) ?? [];
  const total = emails.data?.pages[0]?.total ?? 0;

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="emails-title">
      <Title order={2} size="h4" id="emails-title" mb="sm">
        Emails{total > 0 ? ` (${total.toLocaleString()})` : ''}
      </Title>
      {emails.isPending && <Loading rows={3} label="Loading emails" />}
      {emails.isError && <LoadError error={emails.error} what="the emails" retry={() => emails.refetch()} />}
      {emails.isSuccess && items.length === 0 && <Text size="sm">No email sent to this contact yet.</Text>}
      {items.length > 0 && (
        <TableScroll minWidth={520} label="Emails to this contact">
          <Table aria-label="Emails to this contact" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Subject</Table.Th>
                <Table.Th>Status</Table.Th>
                <Table.Th>Sent</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {items.map((email) => (
                <Table.Tr key={email.id}>
                  <Table.Td>
                    <Anchor component={Link} to={projectPath(project.id, 'emails', email.id)} size="sm" style={{ wordBreak: 'break-word' }}>
                      {email.subject ?? '(no subject)'}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <StatusBadge tone={STATUS_TONE[email.status]}>{email.status}</StatusBadge>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                      <time dateTime={email.sentAt ?? email.createdAt}>{new Date(email.sentAt ?? email.createdAt).toLocaleString()}</time>
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
      {emails.hasNextPage && (
        <Button variant="default" mt="sm" onClick={() => emails.fetchNextPage()} loading={emails.isFetchingNextPage}>
          Load older emails
        </Button>
      )}
    </Paper>
  );
}
