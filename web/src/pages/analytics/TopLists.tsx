import { Group, NativeSelect, Paper, SegmentedControl, Stack, Table, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { DataTable } from '../../ui/DataTable.tsx';
import { EmptyState } from '../../ui/EmptyState.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { rate } from './analytics.ts';

const METRICS = ['opened', 'clicked', 'delivered', 'sent', 'bounced', 'complained'] as const;
type Metric = (typeof METRICS)[number];

/** Campaigns ranked by a metric, as a rate of what they sent or as a count. */
export function TopCampaigns({ from }: { from: string }) {
  const project = useProject();
  const [metric, setMetric] = useState<Metric>('opened');
  const [as, setAs] = useState<'rate' | 'count'>('rate');
  const top = useQuery({
    queryKey: ['analytics', project.id, 'top-campaigns', from, metric, as],
    queryFn: () => call(api.GET('/analytics/top-campaigns', { params: { query: { from, metric, as, limit: 10 } } })),
    placeholderData: keepPreviousData,
  });
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="top-campaigns-title">
      <Stack gap="sm">
        <Group justify="space-between" gap="xs" align="flex-end">
          <Title order={2} size="h4" id="top-campaigns-title">
            Top campaigns
          </Title>
          <Group gap="xs" align="flex-end">
            <NativeSelect
              label="Ranked by"
              size="xs"
              data={METRICS.map((m) => ({ value: m, label: m }))}
              value={metric}
              onChange={(e) => setMetric(e.currentTarget.value as Metric)}
            />
            <SegmentedControl
              size="xs"
              aria-label="Rank by rate or count"
              data={[
                { value: 'rate', label: 'Rate' },
                { value: 'count', label: 'Count' },
              ]}
              value={as}
              onChange={(v) => setAs(v as 'rate' | 'count')}
            />
          </Group>
        </Group>
        {top.isPending && <Loading rows={3} label="Loading top campaigns" />}
        {top.isError && <LoadError error={top.error} what="the top campaigns" retry={() => top.refetch()} />}
        {top.data?.data.length === 0 && <EmptyState title="No campaign activity in this window">Campaigns appear here once they have sent.</EmptyState>}
        {!!top.data?.data.length && (
          <DataTable
            label="Top campaigns"
            minWidth={520}
            rows={top.data.data}
            rowKey={(c) => c.campaignId}
            columns={[
              {
                key: 'name',
                header: 'Campaign',
                rowHeader: true,
                cell: (c) =>
                  c.name ?? (
                    <Text span c="dimmed">
                      deleted campaign
                    </Text>
                  ),
              },
              { key: 'sent', header: 'Sent', cell: (c) => c.sent.toLocaleString() },
              { key: 'open', header: 'Open rate', cell: (c) => rate(c.rates.open) },
              { key: 'click', header: 'Click rate', cell: (c) => rate(c.rates.click) },
              {
                key: 'value',
                header: as === 'rate' ? `${metric} rate` : metric,
                cell: (c) => (
                  <Text span fw={600} size="sm">
                    {as === 'rate' ? rate(c.value) : (c.value ?? 0).toLocaleString()}
                  </Text>
                ),
              },
            ]}
          />
        )}
      </Stack>
    </Paper>
  );
}

/** The most frequent event names of the window: tracked ones, or the service's too. */
export function TopEvents({ from }: { from: string }) {
  const project = useProject();
  const [include, setInclude] = useState<'custom' | 'all'>('custom');
  const top = useQuery({
    queryKey: ['analytics', project.id, 'top-events', from, include],
    queryFn: () => call(api.GET('/analytics/top-events', { params: { query: { from, include, limit: 10 } } })),
    placeholderData: keepPreviousData,
  });
  const max = Math.max(1, ...(top.data?.data.map((e) => e.count) ?? []));
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="top-events-title">
      <Stack gap="sm">
        <Group justify="space-between" gap="xs">
          <Title order={2} size="h4" id="top-events-title">
            Top events
          </Title>
          <SegmentedControl
            size="xs"
            aria-label="Which events"
            data={[
              { value: 'custom', label: 'Tracked' },
              { value: 'all', label: 'All' },
            ]}
            value={include}
            onChange={(v) => setInclude(v as 'custom' | 'all')}
          />
        </Group>
        {top.isPending && <Loading rows={3} label="Loading top events" />}
        {top.isError && <LoadError error={top.error} what="the top events" retry={() => top.refetch()} />}
        {top.data?.data.length === 0 && <EmptyState title="No event in this window">Events you track with POST /v1/track appear here.</EmptyState>}
        {!!top.data?.data.length && (
          <Table verticalSpacing={6} aria-label="Top events">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Event</Table.Th>
                <Table.Th ta="right">Count</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {top.data.data.map((e) => (
                <Table.Tr key={e.name}>
                  <Table.Td style={{ wordBreak: 'break-all' }}>
                    <Text size="sm" ff="monospace">
                      {e.name}
                    </Text>
                    <div aria-hidden="true" style={{ height: 4, width: `${(100 * e.count) / max}%`, background: 'var(--mantine-color-indigo-2)', borderRadius: 2 }} />
                  </Table.Td>
                  <Table.Td ta="right">{e.count.toLocaleString()}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        )}
      </Stack>
    </Paper>
  );
}
