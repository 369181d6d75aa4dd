import { Anchor, Group, NativeSelect, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../../api/client.ts';
import { projectPath, useProject } from '../../shell/project.ts';
import { type Column, DataTable } from '../../ui/DataTable.tsx';
import { LoadError } from '../../ui/LoadError.tsx';
import { Pager } from '../../ui/Pager.tsx';
import { StatusBadge } from '../../ui/StatusBadge.tsx';
import { browserZone } from '../analytics/analytics.ts';
import { type Campaign, campaignKeys, percent, type Recipient } from './campaigns.ts';
import { useCampaignStats } from './useCampaignStats.ts';

// The chart library loads with the chart, not with the campaigns page.
const SeriesChart = lazy(() => import('../analytics/SeriesChart.tsx').then((m) => ({ default: m.SeriesChart })));

const PAGE_SIZE = 25;
const RECIPIENT_STATUSES = ['QUEUED', 'SENDING', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED'] as const;
const GOOD = new Set(['SENT', 'DELIVERED', 'OPENED', 'CLICKED']);
const BAD = new Set(['BOUNCED', 'COMPLAINED', 'FAILED']);

/** One figure of the stats, with its rate when it has one. */
function Figure({ label, value, rate }: { label: string; value: number; rate?: string }) {
  return (
    <Paper withBorder p="sm" radius="md" data-testid={`stat-${label.toLowerCase()}`}>
      <Text size="xs" c="dimmed" tt="uppercase" fw={700}>
        {label}
      </Text>
      <Text size="xl" fw={700}>
        {value.toLocaleString()}
      </Text>
      {rate && <Text size="sm">{rate}</Text>}
    </Paper>
  );
}

/** After sending (or while it runs): the counters with their rates, and every recipient's record. */
export function CampaignReport({ campaign, live }: { campaign: Campaign; live: boolean }) {
  const project = useProject();
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const stats = useCampaignStats(campaign, live);
  const recipients = useQuery({
    queryKey: campaignKeys.recipients(project.id, campaign.id, { status, page, of: campaign.status }),
    queryFn: () =>
      call(
        api.GET('/campaigns/{id}/recipients', {
          params: { path: { id: campaign.id }, query: { page, pageSize: PAGE_SIZE, status: (status || undefined) as (typeof RECIPIENT_STATUSES)[number] | undefined } },
        }),
      ),
    placeholderData: keepPreviousData,
    refetchInterval: live ? 3000 : false,
  });
  // The campaign's activity over time, from the hour its sending began (docs/campaigns.md).
  const since = campaign.sentAt ? new Date(Math.floor(Date.parse(campaign.sentAt) / 3_600_000) * 3_600_000).toISOString() : undefined;
  const tz = browserZone();
  const activity = useQuery({
    queryKey: [...campaignKeys.stats(project.id, campaign.id), 'activity', since, tz],
    queryFn: () => call(api.GET('/analytics/campaign-stats', { params: { query: { campaignId: campaign.id, from: since, tz } } })),
    enabled: since !== undefined,
    // While sending, and until the rollup (every few seconds) has counted every message sent.
    refetchInterval: (query) => (live || (query.state.data?.data[0]?.sent ?? 0) < (stats.data?.sentCount ?? 0) ? 5000 : false),
  });
  const series = activity.data?.series && activity.data.data[0] && activity.data.interval && activity.data.tz ? activity.data : undefined;
  const s = stats.data;
  const columns: Column<Recipient>[] = [
    {
      key: 'email',
      header: 'Recipient',
      rowHeader: true,
      cell: (r) => (
        <Anchor component={Link} to={projectPath(project.id, 'emails', r.emailId)} style={{ wordBreak: 'break-all' }}>
          {r.email}
        </Anchor>
      ),
    },
    {
      key: 'status',
      header: 'Status',
      cell: (r) => <StatusBadge tone={GOOD.has(r.status) ? 'good' : BAD.has(r.status) ? 'bad' : 'neutral'}>{r.status.toLowerCase()}</StatusBadge>,
    },
    { key: 'sentAt', header: 'Sent', cell: (r) => <Text size="sm">{r.sentAt ? new Date(r.sentAt).toLocaleString() : ''}</Text> },
    { key: 'error', header: 'Note', cell: (r) => <Text size="sm">{r.error ?? ''}</Text> },
  ];
  const totalPages = recipients.data?.totalPages ?? 0;
  return (
    <Stack>
      <Title order={2} size="h3">
        Results
      </Title>
      {stats.isError && <LoadError error={stats.error} what="the stats" retry={() => stats.refetch()} />}
      {s && (
        <SimpleGrid cols={{ base: 2, sm: 4 }} spacing="sm">
          <Figure label="Sent" value={s.sentCount} rate={`of ${s.totalRecipients.toLocaleString()}`} />
          <Figure label="Delivered" value={s.deliveredCount} rate={`${percent(s.deliveryRate)} of sent`} />
          <Figure label="Opened" value={s.openedCount} rate={`${percent(s.openRate)} of delivered`} />
          <Figure label="Clicked" value={s.clickedCount} rate={`${percent(s.clickRate)} of delivered`} />
          <Figure label="Bounced" value={s.bouncedCount} rate={`${percent(s.bounceRate)} of sent`} />
          <Figure label="Complained" value={s.complainedCount} rate={s.sentCount ? `${percent((s.complainedCount / s.sentCount) * 100)} of sent` : undefined} />
          <Figure label="Failed" value={s.failedCount} />
          <Figure label="Suppressed" value={s.suppressedCount} rate="not sent" />
        </SimpleGrid>
      )}
      {activity.isError && <LoadError error={activity.error} what="the activity over time" retry={() => activity.refetch()} />}
      {series && (
        <Suspense fallback={<Text c="dimmed">Loading the chart…</Text>}>
          <SeriesChart
            title="Activity over time"
            series={{ interval: series.interval!, tz: series.tz!, upTo: series.upTo, totals: series.data[0]!, rates: series.data[0]!.rates, data: series.series! }}
          />
        </Suspense>
      )}
      <Group justify="space-between" align="flex-end">
        <Title order={2} size="h3" id="recipients-title">
          Recipients{recipients.data ? ` (${recipients.data.total.toLocaleString()})` : ''}
        </Title>
        <NativeSelect
          label="Status"
          value={status}
          onChange={(e) => {
            setStatus(e.currentTarget.value);
            setPage(1);
          }}
          data={[{ value: '', label: 'Every status' }, ...RECIPIENT_STATUSES.map((v) => ({ value: v, label: v.toLowerCase() }))]}
        />
      </Group>
      {recipients.isError && <LoadError error={recipients.error} what="the recipients" retry={() => recipients.refetch()} />}
      {recipients.data && recipients.data.data.length === 0 && <Text c="dimmed">No recipient{status ? ' with this status' : ''}.</Text>}
      {recipients.data && recipients.data.data.length > 0 && (
        <DataTable label="Recipients" rows={recipients.data.data} rowKey={(r) => r.emailId} columns={columns} busy={recipients.isFetching} />
      )}
      <Pager page={page} totalPages={totalPages} onPage={setPage} waiting={recipients.isPlaceholderData} />
    </Stack>
  );
}
