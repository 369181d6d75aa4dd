import { Alert, Box, Code, Paper, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { type EmailContent, fetchEmailContent, mailbox } from './emails.ts';

function Headers({ content }: { content: EmailContent }) {
  const rows: [string, string | null][] = [
    ['From', mailbox(content.from)],
    ['To', mailbox(content.to)],
    ['Reply-To', content.replyTo],
    ['Subject', content.subject],
    ['Message-ID', content.messageId],
    ...Object.entries(content.headers),
  ];
  return (
    <Table aria-label="Message headers" verticalSpacing={4} withRowBorders={false} layout="fixed">
      <Table.Tbody>
        {rows
          .filter((row): row is [string, string] => row[1] !== null)
          .map(([name, value]) => (
            <Table.Tr key={name}>
              <Table.Th w={120} fz="sm" style={{ verticalAlign: 'top', whiteSpace: 'nowrap' }}>
                {name}
              </Table.Th>
              <Table.Td fz="sm" style={{ wordBreak: 'break-word' }}>
                {value}
              </Table.Td>
            </Table.Tr>
          ))}
      </Table.Tbody>
    </Table>
  );
}

/**
 * The rendered message: its headers, then the HTML in a sandboxed frame (no permission at all: no
 * script runs and the document has an opaque origin, so it cannot reach the dashboard or its
 * session) and the plain-text alternative.
 */
export function EmailMessage({ emailId }: { emailId: string }) {
  const project = useProject();
  const content = useQuery({ queryKey: ['email-content', project.id, emailId], queryFn: () => fetchEmailContent(emailId), staleTime: Infinity });

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="message-title">
      <Title order={2} size="h4" id="message-title" mb="sm">
        Message
      </Title>
      {content.isPending && <Loading rows={6} label="Loading the message" />}
      {content.isError && <LoadError error={content.error} what="the message" retry={() => content.refetch()} />}
      {content.data && (
        <Stack gap="sm">
          <Headers content={content.data} />
          <Text size="xs" c="dimmed">
            {content.data.rendered === 'now'
              ? "A campaign's body is not stored per recipient: this is the campaign rendered now with the contact's current data."
              : 'As rendered for the recipient. Links are shown as written: click tracking and the open pixel are added when the message is sent.'}
          </Text>
          {content.data.html === null && content.data.text === null ? (
            <Alert color="yellow" title="No content">
              This record has no rendered content: its campaign is gone or could not be rendered for this contact.
            </Alert>
          ) : (
            <Tabs defaultValue="html" keepMounted={false}>
              <Tabs.List>
                <Tabs.Tab value="html">HTML</Tabs.Tab>
                <Tabs.Tab value="text">Text</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="html" pt="sm">
                <Box
                  component="iframe"
                  title="The message as HTML"
                  sandbox=""
                  srcDoc={content.data.html ?? ''}
                  referrerPolicy="no-referrer"
                  w="100%"
                  h={560}
                  bd="1px solid var(--mantine-color-gray-3)"
                  style={{ borderRadius: 'var(--mantine-radius-sm)', background: 'white', resize: 'vertical', display: 'block' }}
                />
              </Tabs.Panel>
              <Tabs.Panel value="text" pt="sm">
                <Code block tabIndex={0} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: 560, overflow: 'auto' }}>
                  {content.data.text ?? ''}
                </Code>
              </Tabs.Panel>
            </Tabs>
          )}
        </Stack>
      )}
    </Paper>
  );
}
