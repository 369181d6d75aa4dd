import { Alert, Button, Group, List, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { ErrorMessage } from '../../ui/ErrorMessage.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { StatusBadge, type Tone } from '../../ui/StatusBadge.tsx';
import { Section } from './Section.tsx';
import { percent, time } from './settings.ts';

// Orange titles fall short of WCAG AA contrast on the light orange background: the text colour instead.
const READABLE_TITLE = { title: { color: 'var(--mantine-color-text)' } };

type Level = 'insufficient_data' | 'ok' | 'warning' | 'critical';
const LEVELS: Record<Level, { label: string; tone: Tone }> = {
  insufficient_data: { label: 'Too few sends', tone: 'neutral' },
  ok: { label: 'OK', tone: 'good' },
  warning: { label: 'Warning', tone: 'warn' },
  critical: { label: 'Critical', tone: 'bad' },
};

function Rate({ rate, level }: { rate: number; level: Level }) {
  return (
    <Group gap={6} wrap="nowrap">
      <Text size="sm">{percent(rate)}</Text>
      <StatusBadge tone={LEVELS[level].tone}>{LEVELS[level].label}</StatusBadge>
    </Group>
  );
}

type Measure = { measure: string; last7: ReactNode; allTime: ReactNode; warning: string; critical: string };
const MEASURE_COLUMNS: Column<Measure>[] = [
  { key: 'measure', header: 'Measure', rowHeader: true, cell: (m) => m.measure },
  { key: 'last7', header: 'Last 7 days', cell: (m) => m.last7 },
  { key: 'allTime', header: 'All time', cell: (m) => m.allTime },
  { key: 'warning', header: 'Warning at', cell: (m) => m.warning },
  { key: 'critical', header: 'Critical at', cell: (m) => m.critical },
];

/** Bounce and complaint rates against the thresholds that suspend sending. */
export function SecuritySection() {
  const project = useProject();
  const security = useQuery({
    queryKey: ['security', project.id],
    queryFn: () => call(api.GET('/projects/{id}/security', { params: { path: { id: project.id } } })),
  });
  const queryClient = useQueryClient();
  const resume = useMutation({
    mutationFn: () => call(api.PATCH('/users/@me/projects/{id}', { params: { path: { id: project.id } }, body: { marketingPaused: false } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['security', project.id] }),
  });
  const s = security.data;
  return (
    <Section
      id="security"
      title="Sending reputation"
      description="Mailbox providers block senders whose mail bounces or is reported as spam. Rates count hard bounces and complaints per email sent."
    >
      {security.isPending && <Loading rows={3} label="Loading the sending reputation" />}
      {security.isError && <LoadError error={security.error} what="the sending reputation" retry={() => security.refetch()} />}
      {s && (
        <>
          <Group gap="xs">
            <Text size="sm" fw={600}>
              Status
            </Text>
            <StatusBadge tone={LEVELS[s.status].tone}>{LEVELS[s.status].label}</StatusBadge>
            {s.autoDisable && (
              <Text size="xs" c="dimmed">
                Sending is suspended automatically at a critical rate.
              </Text>
            )}
          </Group>
          {s.disabled && (
            <Alert color="red" title="Sending is suspended" role="alert">
              {s.disabledReason ?? 'This project is disabled.'} Only an owner can enable it again, after fixing the cause.
            </Alert>
          )}
          {s.marketingPaused && (
            <Alert color="orange" title="Marketing mail is paused" role="alert" styles={READABLE_TITLE}>
              <Stack gap="xs">
                <Text size="sm">
                  {s.marketingPausedReason ?? 'Marketing mail is paused for its rates.'} Campaign messages wait in the queue; transactional mail keeps flowing. Only an owner can
                  resume it, after fixing the cause.
                </Text>
                <ErrorMessage error={resume.error} />
                <Group>
                  <Button size="xs" variant="default" loading={resume.isPending} onClick={() => resume.mutate()}>
                    Resume marketing mail
                  </Button>
                </Group>
              </Stack>
            </Alert>
          )}
          <DataTable
            label="Rates and thresholds"
            minWidth={560}
            columns={MEASURE_COLUMNS}
            rowKey={(row) => row.measure}
            rows={[
              {
                measure: 'Emails sent',
                last7: s.last7Days.sends.toLocaleString(),
                allTime: s.allTime.sends.toLocaleString(),
                warning: `judged from ${s.thresholds.minimumSends} sends`,
                critical: '',
              },
              {
                measure: 'Bounce rate',
                last7: <Rate rate={s.last7Days.bounceRate} level={s.last7Days.bounceLevel} />,
                allTime: <Rate rate={s.allTime.bounceRate} level={s.allTime.bounceLevel} />,
                warning: percent(s.thresholds.bounceRate.warning),
                critical: percent(s.thresholds.bounceRate.critical),
              },
              {
                measure: 'Complaint rate',
                last7: <Rate rate={s.last7Days.complaintRate} level={s.last7Days.complaintLevel} />,
                allTime: <Rate rate={s.allTime.complaintRate} level={s.allTime.complaintLevel} />,
                warning: percent(s.thresholds.complaintRate.warning),
                critical: percent(s.thresholds.complaintRate.critical),
              },
              // The same rates per stream: marketing mail is paused first (docs/decisions/reputation.md).
              ...(['marketing', 'transactional'] as const).flatMap((stream) => {
                const { last7Days, allTime } = s.streams[stream];
                return [
                  {
                    measure: `Emails sent, ${stream} mail`,
                    last7: last7Days.sends.toLocaleString(),
                    allTime: allTime.sends.toLocaleString(),
                    warning: '',
                    critical: '',
                  },
                  {
                    measure: `Bounce rate, ${stream} mail`,
                    last7: <Rate rate={last7Days.bounceRate} level={last7Days.bounceLevel} />,
                    allTime: <Rate rate={allTime.bounceRate} level={allTime.bounceLevel} />,
                    warning: percent(s.thresholds.bounceRate.warning),
                    critical: percent(s.thresholds.bounceRate.critical),
                  },
                  {
                    measure: `Complaint rate, ${stream} mail`,
                    last7: <Rate rate={last7Days.complaintRate} level={last7Days.complaintLevel} />,
                    allTime: <Rate rate={allTime.complaintRate} level={allTime.complaintLevel} />,
                    warning: percent(s.thresholds.complaintRate.warning),
                    critical: percent(s.thresholds.complaintRate.critical),
                  },
                ];
              }),
            ]}
          />
          {s.suspensions.length > 0 && (
            <List size="sm" aria-label="Past suspensions">
              {s.suspensions.map((suspension) => (
                <List.Item key={suspension.at}>
                  Suspended {time(suspension.at)}
                  {suspension.reason && `: ${suspension.reason}`}
                </List.Item>
              ))}
            </List>
          )}
        </>
      )}
    </Section>
  );
}
