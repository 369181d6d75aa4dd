import { Alert, Group, List, Table, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { StatusBadge, type Tone } from '../../ui/StatusBadge.tsx';
import { TableScroll } from '../../ui/TableScroll.tsx';
import { Section } from './Section.tsx';
import { percent, time } from './settings.ts';

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

/** Bounce and complaint rates against the thresholds that suspend sending. */
export function SecuritySection() {
  const project = useProject();
  const security = useQuery({
    queryKey: ['security', project.id],
    queryFn: () => call(api.GET('/projects/{id}/security', { params: { path: { id: project.id } } })),
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
          <TableScroll minWidth={560} label="Rates and thresholds">
            <Table verticalSpacing="xs" aria-label="Rates and thresholds">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Measure</Table.Th>
                  <Table.Th>Last 7 days</Table.Th>
                  <Table.Th>All time</Table.Th>
                  <Table.Th>Warning at</Table.Th>
                  <Table.Th>Critical at</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                <Table.Tr>
                  <Table.Th scope="row">Emails sent</Table.Th>
                  <Table.Td>{s.last7Days.sends.toLocaleString()}</Table.Td>
                  <Table.Td>{s.allTime.sends.toLocaleString()}</Table.Td>
                  <Table.Td colSpan={2}>judged from {s.thresholds.minimumSends} sends</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th scope="row">Bounce rate</Table.Th>
                  <Table.Td>
                    <Rate rate={s.last7Days.bounceRate} level={s.last7Days.bounceLevel} />
                  </Table.Td>
                  <Table.Td>
                    <Rate rate={s.allTime.bounceRate} level={s.allTime.bounceLevel} />
                  </Table.Td>
                  <Table.Td>{percent(s.thresholds.bounceRate.warning)}</Table.Td>
                  <Table.Td>{percent(s.thresholds.bounceRate.critical)}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th scope="row">Complaint rate</Table.Th>
                  <Table.Td>
                    <Rate rate={s.last7Days.complaintRate} level={s.last7Days.complaintLevel} />
                  </Table.Td>
                  <Table.Td>
                    <Rate rate={s.allTime.complaintRate} level={s.allTime.complaintLevel} />
                  </Table.Td>
                  <Table.Td>{percent(s.thresholds.complaintRate.warning)}</Table.Td>
                  <Table.Td>{percent(s.thresholds.complaintRate.critical)}</Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
          </TableScroll>
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
