import { badRequest } from '../errors.ts';

export type Interval = 'hour' | 'day';

/** A resolved analytics window: [from, to), bucketed by `interval` in `tz`. */
export type Window = { from: Date; to: Date; interval: Interval; tz: string };

const HOUR_MS = 3600 * 1000;
const DAY_MS = 24 * HOUR_MS;
export const DEFAULT_DAYS = 30;
const MAX_DAYS = 366;
const MAX_HOURLY_DAYS = 31;

// IANA names as the database knows them (aliases such as Asia/Calcutta included): Intl knows the
// same tz database; the pattern keeps out what Intl accepts and PostgreSQL would read differently.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

export function checkTimeZone(tz: string | undefined): string {
  if (tz === undefined) return 'UTC';
  let known = ZONE_NAME.test(tz);
  try {
    if (known) new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    known = false;
  }
  if (!known) throw badRequest(`Unknown time zone "${tz}".`, { suggestion: 'Use an IANA time zone name such as Europe/Paris or America/New_York.' });
  return tz;
}

/**
 * The window of an analytics request: `from`/`to` default to the last 30 days; the
 * interval defaults to hours for windows up to two days and days beyond. Hourly series span at
 * most 31 days, daily ones 366.
 */
export function resolveWindow(input: { from?: string; to?: string; interval?: Interval; tz?: string }): Window {
  const to = input.to ? new Date(input.to) : new Date();
  const from = input.from ? new Date(input.from) : new Date(to.getTime() - DEFAULT_DAYS * DAY_MS);
  if (from >= to) throw badRequest('`from` must be before `to`.');
  const span = to.getTime() - from.getTime();
  const interval = input.interval ?? (span <= 2 * DAY_MS ? 'hour' : 'day');
  if (span > MAX_DAYS * DAY_MS) throw badRequest(`The window is at most ${MAX_DAYS} days.`);
  if (interval === 'hour' && span > MAX_HOURLY_DAYS * DAY_MS) {
    throw badRequest(`Hourly series span at most ${MAX_HOURLY_DAYS} days.`, { suggestion: 'Use interval=day for longer windows.' });
  }
  return { from, to, interval, tz: checkTimeZone(input.tz) };
}

/**
 * SQL giving the start of the `interval` bucket, in time zone `tzParam`, that the instant `column`
 * falls in. `interval` comes from the closed Interval type, never from input text.
 */
export const localBucketSql = (column: string, interval: Interval, tzParam: string) => `(date_trunc('${interval}', ${column} AT TIME ZONE ${tzParam}) AT TIME ZONE ${tzParam})`;

/**
 * CTEs `bounds` (lo, hi: the window widened to whole buckets) and `series` (every bucket start in
 * it, so empty buckets are listed with zeros). Parameters: from, to and tz at the given positions.
 * A bucket is the set of instants with the same truncated local time, so a day is 23 or 25 hours
 * across a DST change, and the repeated hour of an autumn change is one two-hour bucket.
 */
export function seriesCtes(interval: Interval, p: { from: string; to: string; tz: string }): string {
  const local = (instant: string) => `date_trunc('${interval}', ${instant} AT TIME ZONE ${p.tz})`;
  return `bounds AS (
       SELECT ${local(`${p.from}::timestamptz`)} AT TIME ZONE ${p.tz} AS lo,
              CASE WHEN ${local(`${p.to}::timestamptz`)} AT TIME ZONE ${p.tz} = ${p.to}::timestamptz THEN ${p.to}::timestamptz
                   ELSE (${local(`${p.to}::timestamptz`)} + interval '1 ${interval}') AT TIME ZONE ${p.tz} END AS hi
     ), series AS (
       SELECT DISTINCT date_trunc('${interval}', g) AT TIME ZONE ${p.tz} AS bucket
       FROM bounds, generate_series(bounds.lo AT TIME ZONE ${p.tz}, bounds.hi AT TIME ZONE ${p.tz}, interval '1 ${interval}') g
     )`;
}
