import { Code, Group, Paper, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { maskKey } from '../overview/curl.ts';

function Row({ name, value, shown = value, note }: { name: string; value: string; shown?: string; note?: string }) {
  return (
    <Table.Tr>
      <Table.Th w={130} fz="sm" style={{ verticalAlign: 'top', whiteSpace: 'nowrap' }}>
        {name}
      </Table.Th>
      <Table.Td>
        <Group gap="xs" wrap="nowrap" align="center">
          <Code flex={1} style={{ wordBreak: 'break-all' }}>
            {shown}
          </Code>
          <CopyButton value={value} label={`Copy the SMTP ${name.toLowerCase()}`} />
        </Group>
        {note && (
          <Text size="xs" c="dimmed" mt={4}>
            {note}
          </Text>
        )}
      </Table.Td>
    </Table.Tr>
  );
}

/**
 * What to paste into an app that sends only over SMTP (WordPress, Django, Rails, Keycloak…):
 * host, ports, username and password (GET /smtp/settings; docs/smtp.md).
 */
export function SmtpCard() {
  const project = useProject();
  const settings = useQuery({ queryKey: ['smtp-settings', project.id], queryFn: () => call(api.GET('/smtp/settings')), staleTime: 60_000 });
  const s = settings.data;
  const ports = s
    ? [s.submission && `${s.submission.port} (${s.starttls ? 'STARTTLS' : 'no TLS: loopback clients only'})`, s.submissions && `${s.submissions.port} (TLS)`].filter(Boolean)
    : [];

  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="smtp-title">
      <Stack gap="xs">
        <Title order={2} size="h4" id="smtp-title">
          SMTP credentials
        </Title>
        <Text size="sm" c="dimmed">
          For apps that can only send over SMTP. Each message goes through the same checks, contacts, suppressions and events as POST /v1/send, and is DKIM-signed on your verified
          domain.
        </Text>
        {settings.isPending && <Loading rows={3} label="Loading the SMTP settings" />}
        {settings.isError && <LoadError error={settings.error} what="the SMTP settings" retry={() => settings.refetch()} />}
        {s && ports.length === 0 && <Text size="sm">SMTP submission is off on this server: its operator turns it on with SMTP_SUBMISSION_PORT or SMTP_SUBMISSIONS_PORT.</Text>}
        {s && ports.length > 0 && (
          <Table aria-label="SMTP settings" verticalSpacing={6} withRowBorders={false} layout="fixed">
            <Table.Tbody>
              <Row name="Host" value={s.hostname} />
              <Row name="Port" value={String((s.submission ?? s.submissions)!.port)} note={`Available: ${ports.join(', ')}`} />
              <Row name="Username" value={s.username} note="Any username works; one that names the app makes logs easier to read." />
              {project.secretKey ? (
                <Row
                  name="Password"
                  value={project.secretKey}
                  shown={maskKey(project.secretKey)}
                  note="The project's secret key, or a named key with the sending scope. Authentication: PLAIN or LOGIN."
                />
              ) : (
                <Table.Tr>
                  <Table.Th fz="sm">Password</Table.Th>
                  <Table.Td fz="sm">A secret key of this project (an owner or admin sees it here), or a named key with the sending scope.</Table.Td>
                </Table.Tr>
              )}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Paper>
  );
}
