import { Anchor, Code, Group, List, Paper, Progress, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { CopyButton } from '../../ui/CopyButton.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { curlExamples } from './curl.ts';

/** Where each onboarding step (admin.service.ts STEPS) is done. */
const STEP_PAGES: Record<string, string> = {
  domainAdded: 'domains',
  domainVerified: 'domains',
  contactCreated: 'contacts',
  templateCreated: 'templates',
  emailSent: 'templates',
  eventTracked: 'activity',
  campaignCreated: 'campaigns/new',
  teamInvited: 'settings',
};

export function Component() {
  const project = useProject();
  const setup = useQuery({
    queryKey: ['setup-state', project.id],
    queryFn: () => call(api.GET('/projects/{id}/setup-state', { params: { path: { id: project.id } } })),
  });
  const domains = useQuery({
    queryKey: ['domains', project.id],
    queryFn: async () => (await call(api.GET('/domains/project/{projectId}', { params: { path: { projectId: project.id } } }))).data,
  });
  const verified = domains.data?.find((d) => d.status === 'verified')?.domain;
  const examples = curlExamples(window.location.origin, project, verified);

  return (
    <Stack maw={900}>
      <PageHeader title="Get started" description={`Set up ${project.name} to send email and track what your users do.`} />
      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="checklist-title">
        <Title order={2} size="h4" id="checklist-title" mb="sm">
          Checklist
        </Title>
        {setup.isPending && <Loading rows={5} label="Loading the checklist" />}
        {setup.isError && <LoadError error={setup.error} what="the checklist" retry={() => setup.refetch()} />}
        {setup.data && (
          <Stack gap="sm">
            <Group gap="sm">
              <Progress value={(100 * setup.data.completed) / setup.data.total} flex={1} aria-label="Setup progress" />
              <Text size="sm">
                {setup.data.completed} of {setup.data.total} done
              </Text>
            </Group>
            <List spacing="xs" listStyleType="none" aria-label="Setup steps">
              {setup.data.steps.map((step) => (
                <List.Item
                  key={step.id}
                  icon={
                    <ThemeIcon size={22} radius="xl" color={step.done ? 'teal.8' : 'gray.6'} aria-hidden>
                      {step.done ? '✓' : '·'}
                    </ThemeIcon>
                  }
                >
                  <Group gap="xs">
                    <Anchor component={Link} to={projectPath(project.id, STEP_PAGES[step.id] ?? '')} td={step.done ? 'line-through' : undefined}>
                      {step.label}
                    </Anchor>
                    <StatusBadge tone={step.done ? 'good' : 'neutral'}>{step.done ? 'Done' : 'To do'}</StatusBadge>
                  </Group>
                </List.Item>
              ))}
            </List>
          </Stack>
        )}
      </Paper>
      <Paper withBorder p="md" radius="md" component="section" aria-labelledby="curl-title">
        <Title order={2} size="h4" id="curl-title" mb="xs">
          Try it from your terminal
        </Title>
        {!project.secretKey && (
          <Text size="sm" mb="sm">
            Your role ({project.role}) does not show the project's keys: ask an owner or admin for them.
          </Text>
        )}
        <Stack gap="md">
          {examples.map((example) => (
            <Stack key={example.title} gap={6}>
              <Group justify="space-between">
                <Text fw={600} size="sm">
                  {example.title}
                </Text>
                <CopyButton value={example.command} label={`Copy the command: ${example.title}`} />
              </Group>
              <Text size="xs" c="dimmed">
                {example.note}
              </Text>
              <Code block style={{ whiteSpace: 'pre-wrap', wordBreak: 'break-all' }}>
                {example.shown}
              </Code>
            </Stack>
          ))}
        </Stack>
      </Paper>
    </Stack>
  );
}
