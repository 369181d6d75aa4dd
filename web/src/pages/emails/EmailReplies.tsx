import { Anchor, Paper, Table, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { projectPath, useProject } from '../../shell/project.ts';
import { TableScroll } from '../../ui/TableScroll.tsx';
import { type Email, mailbox } from './emails.ts';

/** The replies a record received (docs/inbound.md), each opening its received message. */
export function EmailReplies({ replies }: { replies: Email['replies'] }) {
  const project = useProject();
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="replies-title">
      <Title order={2} size="h4" id="replies-title" mb="sm">
        Replies{replies.length ? ` (${replies.length})` : ''}
      </Title>
      {replies.length === 0 ? (
        <Text size="sm">No reply received. Replies arrive when the sending domain receives inbound mail (Domains page).</Text>
      ) : (
        <TableScroll minWidth={520} label="Replies to this email">
          <Table aria-label="Replies to this email" verticalSpacing="xs">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Subject</Table.Th>
                <Table.Th>From</Table.Th>
                <Table.Th>Received</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {replies.map((reply) => (
                <Table.Tr key={reply.id}>
                  <Table.Td>
                    <Anchor component={Link} to={projectPath(project.id, 'inbound', reply.id)} size="sm" style={{ wordBreak: 'break-word' }}>
                      {reply.subject || '(no subject)'}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ wordBreak: 'break-all' }}>
                      {mailbox(reply.from)}
                    </Text>
                  </Table.Td>
                  <Table.Td>
                    <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                      <time dateTime={reply.receivedAt}>{new Date(reply.receivedAt).toLocaleString()}</time>
                    </Text>
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </TableScroll>
      )}
    </Paper>
  );
}
