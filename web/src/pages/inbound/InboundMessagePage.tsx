import { Anchor, Box, Button, Code, Group, List, Paper, SimpleGrid, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { saveFile } from '../../ui/saveFile.ts';
import { mailbox } from '../emails/emails.ts';
import { byteSize, fetchInboundMessage, type InboundMessage } from './inbound.ts';

function Headers({ message }: { message: InboundMessage }) {
  return (
    <Table aria-label="Message headers" verticalSpacing={4} withRowBorders={false} layout="fixed">
      <Table.Tbody>
        {message.headers.map((header, i) => (
          // Header names repeat (Received): the position keeps the rows apart.
          <Table.Tr key={i}>
            <Table.Th w={160} fz="sm" style={{ verticalAlign: 'top', whiteSpace: 'nowrap' }}>
              {header.name}
            </Table.Th>
            <Table.Td fz="sm" style={{ wordBreak: 'break-word' }}>
              {header.value}
            </Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** One received message (GET /inbound/{id}): who sent it, what it answers, its text, HTML, attachments and headers. */
export function Component() {
  const project = useProject();
  const { inboundId = '' } = useParams();
  const message = useQuery({ queryKey: ['inbound-message', project.id, inboundId], queryFn: () => fetchInboundMessage(inboundId), staleTime: Infinity });
  // GET /inbound/{id}/raw needs the project header, which a plain link cannot send: fetched, then saved.
  const download = useMutation({
    mutationFn: async () => {
      const raw = await call(api.GET('/inbound/{id}/raw', { params: { path: { id: inboundId } }, parseAs: 'blob' }));
      saveFile(raw as unknown as Blob, `${inboundId}.eml`);
    },
  });
  if (message.isPending) return <Loading rows={6} label="Loading the message" />;
  if (message.isError) return <LoadError error={message.error} what="this message" retry={() => message.refetch()} />;
  const m = message.data;

  return (
    <Stack maw={1000}>
      <PageHeader
        title={m.subject || '(no subject)'}
        description={`Received ${new Date(m.receivedAt).toLocaleString()} from ${mailbox(m.from)}`}
        actions={
          <Button variant="default" onClick={() => download.mutate()} loading={download.isPending}>
            Download raw (.eml)
          </Button>
        }
      />
      <ErrorMessage error={download.error} />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Paper withBorder p="md" radius="md" component="section" aria-labelledby="inbound-details-title">
          <Title order={2} size="h4" id="inbound-details-title" mb="sm">
            Details
          </Title>
          <Stack gap={6}>
            <Group gap="xs">
              <Text size="sm" fw={600}>
                Contact
              </Text>
              {m.contact ? (
                <Anchor component={Link} to={projectPath(project.id, 'contacts', m.contact.id)} size="sm">
                  {m.contact.email}
                </Anchor>
              ) : (
                <Text size="sm">none</Text>
              )}
            </Group>
            <Text size="sm" style={{ wordBreak: 'break-all' }}>
              <strong>To</strong> {m.to.join(', ')}
            </Text>
            {m.cc.length > 0 && (
              <Text size="sm" style={{ wordBreak: 'break-all' }}>
                <strong>Cc</strong> {m.cc.join(', ')}
              </Text>
            )}
            {m.emailId && (
              <Group gap="xs">
                <Text size="sm" fw={600}>
                  In reply to
                </Text>
                <Anchor component={Link} to={projectPath(project.id, 'emails', m.emailId)} size="sm">
                  the email we sent
                </Anchor>
              </Group>
            )}
            <Text size="sm">
              <strong>Size</strong> {byteSize(m.size)}
            </Text>
          </Stack>
        </Paper>
        <Paper withBorder p="md" radius="md" component="section" aria-labelledby="inbound-attachments-title">
          <Title order={2} size="h4" id="inbound-attachments-title" mb="sm">
            Attachments
          </Title>
          {m.attachments.length === 0 ? (
            <Text size="sm">None.</Text>
          ) : (
            <List size="sm" spacing={4}>
              {m.attachments.map((a, i) => (
                <List.Item key={i}>
                  {a.filename ?? '(unnamed)'} · {a.contentType} · {byteSize(a.size)}
                </List.Item>
              ))}
            </List>
          )}
        </Paper>
      </SimpleGrid>
      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="inbound-message-title">
        <Title order={2} size="h4" id="inbound-message-title" mb="sm">
          Message
        </Title>
        <Tabs defaultValue={m.text !== null ? 'text' : 'html'} keepMounted={false}>
          <Tabs.List>
            <Tabs.Tab value="text">Text</Tabs.Tab>
            <Tabs.Tab value="html">HTML</Tabs.Tab>
            <Tabs.Tab value="headers">Headers</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="text" pt="sm">
            <Code block tabIndex={0} style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-word', maxHeight: 560, overflow: 'auto' }}>
              {m.text ?? '(no text part)'}
            </Code>
          </Tabs.Panel>
          <Tabs.Panel value="html" pt="sm">
            {/* No permission at all: no script runs, and the document cannot reach the dashboard. */}
            <Box
              component="iframe"
              title="The received message as HTML"
              sandbox=""
              srcDoc={m.html ?? ''}
              referrerPolicy="no-referrer"
              w="100%"
              h={560}
              bd="1px solid var(--mantine-color-gray-3)"
              style={{ borderRadius: 'var(--mantine-radius-sm)', background: 'white', resize: 'vertical', display: 'block' }}
            />
          </Tabs.Panel>
          <Tabs.Panel value="headers" pt="sm">
            <Headers message={m} />
          </Tabs.Panel>
        </Tabs>
      </Paper>
    </Stack>
  );
}
