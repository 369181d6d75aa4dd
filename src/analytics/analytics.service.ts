import type { Deps } from '../deps.ts';
import { badRequest, notFound } from '../errors.ts';
import * as queries from './analytics.queries.ts';
import { type EmailMetrics, type Rates, ratesOf, sumMetrics, toMetrics } from './metrics.ts';
import { type Interval, resolveWindow, type Window } from './window.ts';

type AnalyticsDeps = Pick<Deps, 'db'>;
type WindowInput = { from?: string; to?: string; interval?: Interval; tz?: string };

const iso = (value: Date) => new Date(value).toISOString();

async function series(deps: AnalyticsDeps, projectId: string, window: Window, campaignId?: string) {
  const rows = await queries.emailSeries(deps.db, projectId, window, campaignId);
  const data = rows.map((row) => ({ bucket: iso(row.bucket), label: row.label, ...toMetrics(row) }));
  // The window as answered: widened to whole buckets (a from < to window has at least one).
  const bounds = { from: iso(rows[0]!.lo), to: iso(rows[0]!.hi) };
  return { bounds, data };
}

/** GET /analytics/timeseries: email metrics per hour or day, from the rollups only. */
export async function timeseries(deps: AnalyticsDeps, projectId: string, input: WindowInput) {
  const window = resolveWindow(input);
  const { bounds, data } = await series(deps, projectId, window);
  const totals = sumMetrics(data);
  return { ...bounds, interval: window.interval, tz: window.tz, upTo: await upTo(deps), totals, rates: ratesOf(totals), data };
}

const upTo = async (deps: AnalyticsDeps) => {
  const at = await queries.rollupWatermark(deps.db);
  return at ? at.toISOString() : null;
};

export type CampaignMetric = 'sent' | 'delivered' | 'opened' | 'clicked' | 'bounced' | 'complained';

/** The count a campaign is ranked by: opens and clicks count each message once. */
const COUNT_OF: Record<CampaignMetric, keyof EmailMetrics> = {
  sent: 'sent',
  delivered: 'delivered',
  opened: 'uniqueOpened',
  clicked: 'uniqueClicked',
  bounced: 'bounced',
  complained: 'complained',
};
const RATE_OF: Partial<Record<CampaignMetric, keyof Rates>> = { delivered: 'delivery', opened: 'open', clicked: 'click', bounced: 'bounce', complained: 'complaint' };

function campaignItem(row: queries.CampaignTotalsRow) {
  const metrics = toMetrics(row);
  return { campaignId: row.campaign_id, name: row.name, status: row.status, lastActivityAt: iso(row.last_activity), ...metrics, rates: ratesOf(metrics) };
}

/** GET /analytics/top-campaigns: campaigns ranked by a metric over the window, as a count or a rate. */
export async function topCampaigns(deps: AnalyticsDeps, projectId: string, input: WindowInput & { metric: CampaignMetric; as: 'count' | 'rate'; limit?: number }) {
  const window = resolveWindow(input);
  const rate = RATE_OF[input.metric];
  if (input.as === 'rate' && !rate)
    throw badRequest(`There is no rate for "${input.metric}".`, { suggestion: 'Use as=count, or a metric among delivered, opened, clicked, bounced, complained.' });
  const items = (await queries.campaignTotals(deps.db, projectId, window.from, window.to)).map(campaignItem);
  const metricOf = (item: ReturnType<typeof campaignItem>) => (input.as === 'rate' ? (item.rates[rate!] ?? -1) : item[COUNT_OF[input.metric]]);
  const ranked = items
    .map((item) => ({ ...item, value: metricOf(item) }))
    .sort((a, b) => b.value - a.value || b.sent - a.sent || a.campaignId.localeCompare(b.campaignId))
    .slice(0, Math.min(input.limit ?? 10, 100))
    .map((item) => ({ ...item, value: item.value < 0 ? null : item.value }));
  return { from: iso(window.from), to: iso(window.to), metric: input.metric, as: input.as, upTo: await upTo(deps), data: ranked };
}

/**
 * GET /analytics/campaign-stats: each campaign's metrics and rates over the window; with
 * `campaignId`, that campaign alone plus its series per hour or day.
 */
export async function campaignStats(deps: AnalyticsDeps, projectId: string, input: WindowInput & { campaignId?: string }) {
  const window = resolveWindow(input);
  if (!input.campaignId) {
    const data = (await queries.campaignTotals(deps.db, projectId, window.from, window.to)).map(campaignItem);
    return { from: iso(window.from), to: iso(window.to), upTo: await upTo(deps), data };
  }
  const campaign = await queries.findCampaign(deps.db, projectId, input.campaignId);
  const [row] = await queries.campaignTotals(deps.db, projectId, window.from, window.to, input.campaignId);
  if (!campaign && !row) throw notFound('Campaign');
  const { bounds, data: points } = await series(deps, projectId, window, input.campaignId);
  const item = row
    ? campaignItem(row)
    : { campaignId: campaign!.id, name: campaign!.name, status: campaign!.status, lastActivityAt: null, ...sumMetrics([]), rates: ratesOf(sumMetrics([])) };
  return { ...bounds, interval: window.interval, tz: window.tz, upTo: await upTo(deps), data: [item], series: points };
}

/** GET /analytics/top-events: the most frequent event names (tracked ones unless include=all). */
export async function topEvents(deps: AnalyticsDeps, projectId: string, input: { from?: string; to?: string; limit?: number; include?: 'custom' | 'all' }) {
  const window = resolveWindow({ from: input.from, to: input.to, interval: 'day' });
  const rows = await queries.topEvents(deps.db, projectId, window, { includeService: input.include === 'all', limit: Math.min(input.limit ?? 10, 100) });
  return { from: iso(window.from), to: iso(window.to), upTo: await upTo(deps), data: rows.map((row) => ({ name: row.name, count: row.count })) };
}
