import { Anchor, Paper, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { projectPath, useProject } from '../../shell/project.ts';
import { DataTable } from '../../ui/DataTable.tsx';
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
        <DataTable
          label="Replies to this email"
          minWidth={520}
          rows={replies}
          rowKey={(reply) => reply.id}
          columns={[
            {
              key: 'subject',
              header: 'Subject',
              cell: (reply) => (
                <Anchor component={Link} to={projectPath(project.id, 'inbound', reply.id)} size="sm" style={{ wordBreak: 'break-word' }}>
                  {reply.subject || '(no subject)'}
                </Anchor>
              ),
            },
            {
              key: 'from',
              header: 'From',
              cell: (reply) => (
                <Text size="sm" style={{ wordBreak: 'break-all' }}>
                  {mailbox(reply.from)}
                </Text>
              ),
            },
            {
              key: 'received',
              header: 'Received',
              cell: (reply) => (
                <Text size="sm" style={{ whiteSpace: 'nowrap' }}>
                  <time dateTime={reply.receivedAt}>{new Date(reply.receivedAt).toLocaleString()}</time>
                </Text>
              ),
            },
          ]}
        />
      )}
    </Paper>
  );
}
