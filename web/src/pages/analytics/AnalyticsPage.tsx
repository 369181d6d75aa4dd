import { Group, SegmentedControl, Select, SimpleGrid, Stack } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { api, call } from '../../api/client.ts';
import { useProject } from '../../shell/project.ts';
import { LoadError } from '../../ui/LoadError.tsx';
import { Loading } from '../../ui/Loading.tsx';
import { PageHeader } from '../../ui/PageHeader.tsx';
import { browserZone, RANGES, type Range, windowStart, zones } from './analytics.ts';
import { SeriesChart } from './SeriesChart.tsx';
import { TopCampaigns, TopEvents } from './TopLists.tsx';

export function Component() {
  const project = useProject();
  // Range and zone live in the address, so a view can be shared and survives a reload.
  const [params, setParams] = useSearchParams();
  const range = (RANGES.some((r) => r.value === params.get('range')) ? params.get('range') : '30d') as Range;
  const tz = params.get('tz') || browserZone();
  const set = (key: string, value: string) => setParams((p) => (p.set(key, value), p), { replace: true });
  const from = useMemo(() => windowStart(range), [range]);
  const zoneOptions = useMemo(zones, []);
  const series = useQuery({
    queryKey: ['analytics', project.id, 'timeseries', from, tz],
    queryFn: () => call(api.GET('/analytics/timeseries', { params: { query: { from, tz, interval: range === '24h' ? 'hour' : 'day' } } })),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });

  return (
    <Stack maw={1200}>
      <PageHeader
        title="Analytics"
        description="What happened to the mail this project sent, and what its users did."
        actions={
          <Group gap="xs" align="flex-end">
            <SegmentedControl aria-label="Range" data={RANGES.map((r) => ({ value: r.value, label: r.label }))} value={range} onChange={(v) => set('range', v)} />
            <Select
              label="Time zone"
              data={zoneOptions}
              value={tz}
              onChange={(v) => v && set('tz', v)}
              searchable
              allowDeselect={false}
              w={200}
              nothingFoundMessage="No such time zone"
            />
          </Group>
        }
      />
      {series.isPending && <Loading rows={6} label="Loading the email activity" />}
      {series.isError && <LoadError error={series.error} what="the email activity" retry={() => series.refetch()} />}
      {series.data && <SeriesChart series={series.data} />}
      <SimpleGrid cols={{ base: 1, md: 2 }}>
        <TopCampaigns from={from} />
        <TopEvents from={from} />
      </SimpleGrid>
    </Stack>
  );
}
