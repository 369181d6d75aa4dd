import { Alert, Anchor, Group, Paper, SimpleGrid, Stack, Text, Timeline, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { projectPath, useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { EmailMessage } from './EmailMessage.tsx';
import { EmailReplies } from './EmailReplies.tsx';
import { type Email, FINAL_STATUSES, fetchEmail, STATUS_TONE } from './emails.ts';

/** The steps the record has reached, in order, with their times. */
function steps(email: Email): { label: string; at: string; detail?: string }[] {
  const all: { label: string; at: string | null; detail?: string }[] = [
    { label: 'Queued', at: email.createdAt },
    { label: 'Sent', at: email.sentAt },
    { label: 'Delivered', at: email.deliveredAt },
    { label: 'Opened', at: email.openedAt, detail: `${email.opens} open${email.opens === 1 ? '' : 's'}` },
    { label: 'Clicked', at: email.clickedAt, detail: `${email.clicks} click${email.clicks === 1 ? '' : 's'}` },
    { label: 'Bounced', at: email.bouncedAt, detail: email.error ?? undefined },
    { label: 'Complained', at: email.complainedAt },
  ];
  return all.filter((s): s is { label: string; at: string; detail?: string } => Boolean(s.at)).sort((a, b) => a.at.localeCompare(b.at));
}

export function Component() {
  const project = useProject();
  const { emailId = '' } = useParams();
  // Until the email reaches a final state, its record changes: poll it.
  const email = useQuery({
    queryKey: ['email', project.id, emailId],
    queryFn: () => fetchEmail(emailId),
    refetchInterval: (query) => (query.state.data && FINAL_STATUSES.has(query.state.data.status) ? false : 2000),
  });
  if (email.isPending) return <Loading rows={6} label="Loading the email" />;
  if (email.isError) return <LoadError error={email.error} what="this email" retry={() => email.refetch()} />;
  const e = email.data;
  const reached = steps(e);

  return (
    <Stack maw={1000}>
      <PageHeader
        title={e.subject ?? '(no subject)'}
        description={`${e.sourceType.toLowerCase()} email to ${e.to}`}
        actions={<StatusBadge tone={STATUS_TONE[e.status]}>{e.status}</StatusBadge>}
      />
      <SimpleGrid cols={{ base: 1, sm: 2 }}>
        <Paper withBorder p="md" radius="md" component="section" aria-labelledby="timeline-title">
          <Title order={2} size="h4" id="timeline-title" mb="sm">
            Timeline
          </Title>
          <Timeline active={reached.length - 1} bulletSize={14} lineWidth={2} aria-label="Email timeline">
            {reached.map((step) => (
              <Timeline.Item key={step.label} title={step.label}>
                <Text size="xs" c="dimmed">
                  <time dateTime={step.at}>{new Date(step.at).toLocaleString()}</time>
                </Text>
                {step.detail && <Text size="xs">{step.detail}</Text>}
              </Timeline.Item>
            ))}
          </Timeline>
          {e.error && e.status !== 'BOUNCED' && (
            <Alert color="red" mt="sm" title="Why">
              {e.error}
            </Alert>
          )}
        </Paper>
        <Paper withBorder p="md" radius="md" component="section" aria-labelledby="details-title">
          <Title order={2} size="h4" id="details-title" mb="sm">
            Details
          </Title>
          <Stack gap={6}>
            <Group gap="xs">
              <Text size="sm" fw={600}>
                Contact
              </Text>
              {e.contactId ? (
                <Anchor component={Link} to={projectPath(project.id, 'contacts', e.contactId)} size="sm">
                  {e.to}
                </Anchor>
              ) : (
                <Text size="sm">{e.to} (no contact)</Text>
              )}
            </Group>
            <Text size="sm">
              <strong>Source</strong> {e.sourceType.toLowerCase()}
            </Text>
            {e.resends > 0 && (
              <Text size="sm">
                <strong>Sent again</strong> {e.resends} time{e.resends === 1 ? '' : 's'}, with the same Message-ID
              </Text>
            )}
            <Text size="sm">
              <strong>Record</strong> <code>{e.id}</code>
            </Text>
          </Stack>
        </Paper>
      </SimpleGrid>
      <EmailMessage emailId={e.id} />
      <EmailReplies replies={e.replies} />
    </Stack>
  );
}
