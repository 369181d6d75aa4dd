import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import { Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { DataTable } from '../../ui/DataTable.tsx';
import { rate, SERIES } from './analytics.ts';

type Metrics = Record<(typeof SERIES)[number]['name'], number>;
type Series = {
  interval: 'hour' | 'day';
  tz: string;
  upTo: string | null;
  totals: Metrics;
  rates: { delivery: number | null; open: number | null; click: number | null; bounce: number | null };
  data: (Metrics & { label: string })[];
};

const RATE_OF: Partial<Record<(typeof SERIES)[number]['name'], keyof Series['rates']>> = { delivered: 'delivery', opened: 'open', clicked: 'click', bounced: 'bounce' };

/** Totals with their rates, the chart over time, and the same figures as a table for screen readers. */
export function SeriesChart({ series, title = 'Email activity' }: { series: Series; title?: string }) {
  const [tableShown, table] = useDisclosure(false);
  const data = series.data.map((point) => ({ ...point, label: series.interval === 'day' ? point.label : point.label.slice(11) }));
  return (
    <Paper withBorder p="md" radius="md" component="section" aria-labelledby="series-title">
      <Stack gap="md">
        <Group justify="space-between" gap="xs">
          <Title order={2} size="h4" id="series-title">
            {title}
          </Title>
          <Text size="xs" c="dimmed">
            {series.interval === 'day' ? 'Per day' : 'Per hour'} in {series.tz}
            {series.upTo && ` · counted up to ${new Date(series.upTo).toLocaleTimeString()}`}
          </Text>
        </Group>
        <SimpleGrid cols={{ base: 2, xs: 3, sm: 5 }} spacing="xs">
          {SERIES.map((s) => {
            const key = RATE_OF[s.name];
            return (
              <Paper key={s.name} withBorder p="xs" radius="sm" aria-label={`${s.label}: ${series.totals[s.name]}`} role="group">
                <Text size="xs" c="dimmed">
                  {s.label}
                </Text>
                <Text fw={700} size="xl">
                  {series.totals[s.name].toLocaleString()}
                </Text>
                {key && (
                  <Text size="xs" c="dimmed">
                    {rate(series.rates[key])}
                  </Text>
                )}
              </Paper>
            );
          })}
        </SimpleGrid>
        <figure aria-label={`Chart of the ${title.toLowerCase()}; the same figures are in the table below it`} style={{ margin: 0 }}>
          <LineChart
            h={280}
            data={data}
            dataKey="label"
            series={SERIES.map((s) => ({ name: s.name, label: s.label, color: s.color }))}
            curveType="linear"
            withLegend
            legendProps={{ verticalAlign: 'bottom' }}
            withDots={data.length < 40}
            tickLine="y"
          />
        </figure>
        <Button variant="default" size="xs" onClick={table.toggle} aria-expanded={tableShown} style={{ alignSelf: 'flex-start' }}>
          {tableShown ? 'Hide the figures' : 'Show the figures as a table'}
        </Button>
        {tableShown && (
          <DataTable
            label={`${title} figures`}
            minWidth={520}
            rows={series.data}
            rowKey={(point) => point.label}
            columns={[
              { key: 'label', header: series.interval === 'day' ? 'Day' : 'Hour', rowHeader: true, cell: (point) => point.label.replace('T', ' ') },
              ...SERIES.map((s) => ({ key: s.name, header: s.label, cell: (point: (typeof series.data)[number]) => point[s.name] })),
            ]}
          />
        )}
      </Stack>
    </Paper>
  );
}
