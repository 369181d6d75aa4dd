import { z } from 'zod';

const datetime = z.iso.datetime({ offset: true });

export const windowQuery = {
  from: datetime.optional().describe('window start (default: 30 days before `to`)'),
  to: datetime.optional().describe('window end, exclusive (default: now)'),
};
export const intervalQuery = {
  interval: z.enum(['hour', 'day']).optional().describe('bucket size (default: hour for windows up to 2 days, else day)'),
  tz: z.string().max(64).optional().describe('IANA time zone the buckets follow (default UTC)'),
};
const limit = z.coerce.number().int().min(1).optional();

export const timeseriesQuery = z.object({ ...windowQuery, ...intervalQuery });

export const topCampaignsQuery = z.object({
  ...windowQuery,
  metric: z.enum(['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained']).default('opened'),
  as: z.enum(['count', 'rate']).default('rate'),
  limit: limit.describe('default 10, at most 100'),
});

export const campaignStatsQuery = z.object({ ...windowQuery, ...intervalQuery, campaignId: z.uuid().optional() });

export const topEventsQuery = z.object({
  ...windowQuery,
  limit: limit.describe('default 10, at most 100'),
  include: z.enum(['custom', 'all']).default('custom').describe('custom: tracked events only; all: service events too'),
});

const count = z.number().int();
export const emailMetrics = {
  attempted: count,
  sent: count,
  delivered: count,
  opened: count,
  uniqueOpened: count,
  clicked: count,
  uniqueClicked: count,
  bounced: count,
  softBounced: count,
  complained: count,
  failed: count,
  suppressed: count,
};
const rate = z.number().nullable();
export const rates = z.object({ delivery: rate, open: rate, click: rate, bounce: rate, complaint: rate });

const point = z.object({ bucket: z.string(), label: z.string(), ...emailMetrics });
const upTo = z.string().nullable().describe('events up to this instant are counted (the rollup runs every few seconds)');

export const timeseriesResponse = z.object({
  from: z.string(),
  to: z.string(),
  interval: z.enum(['hour', 'day']),
  tz: z.string(),
  upTo,
  totals: z.object(emailMetrics),
  rates,
  data: z.array(point),
});

const campaignItem = z.object({
  campaignId: z.uuid(),
  name: z.string().nullable(),
  status: z.string().nullable(),
  lastActivityAt: z.string().nullable(),
  ...emailMetrics,
  rates,
});

export const topCampaignsResponse = z.object({
  from: z.string(),
  to: z.string(),
  metric: z.string(),
  as: z.enum(['count', 'rate']),
  upTo,
  data: z.array(campaignItem.extend({ value: z.number().nullable() })),
});

export const campaignStatsResponse = z.object({
  from: z.string(),
  to: z.string(),
  interval: z.enum(['hour', 'day']).optional(),
  tz: z.string().optional(),
  upTo,
  data: z.array(campaignItem),
  series: z.array(point).optional(),
});

export const topEventsResponse = z.object({ from: z.string(), to: z.string(), upTo, data: z.array(z.object({ name: z.string(), count })) });
