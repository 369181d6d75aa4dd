import type { Queryable } from '../db/index.ts';
import { BUCKET_SQL, EMAIL_METRIC_COLUMNS, NO_CAMPAIGN } from './rollup.queries.ts';
import { type Interval, localBucketSql, seriesCtes } from './window.ts';

export type EmailMetricColumn = (typeof EMAIL_METRIC_COLUMNS)[number];
export type EmailMetricRow = Record<EmailMetricColumn, number>;

const SUMS = EMAIL_METRIC_COLUMNS.map((column) => `coalesce(sum(c.${column}), 0)::bigint AS ${column}`).join(', ');

/** Everything counted up to this instant (the rollup's watermark); null before its first run. */
export async function rollupWatermark(db: Queryable): Promise<Date | null> {
  const rows = await db.query<{ watermark: Date | null }>(
    `SELECT CASE WHEN watermark = '-infinity' THEN NULL ELSE watermark END AS watermark FROM rollup_watermarks WHERE name = 'events'`,
  );
  const at = rows[0]?.watermark;
  return at ? new Date(at) : null;
}

export type SeriesRow = EmailMetricRow & { bucket: Date; label: string; lo: Date; hi: Date };

/**
 * Email metrics per `interval` bucket in `tz` over the window widened to whole buckets, every bucket
 * listed (zeros included); `lo` and `hi` on every row are the widened window. Reads email_counts
 * only: a (project_id, bucket) index range of 96 rows a day.
 */
export async function emailSeries(db: Queryable, projectId: string, window: { from: Date; to: Date; interval: Interval; tz: string }, campaignId?: string): Promise<SeriesRow[]> {
  const params: unknown[] = [projectId, window.from.toISOString(), window.to.toISOString(), window.tz];
  let campaignFilter = '';
  if (campaignId) {
    params.push(campaignId);
    campaignFilter = `AND c.campaign_id = $${params.length}::uuid`;
  }
  const labelFormat = window.interval === 'day' ? 'YYYY-MM-DD' : 'YYYY-MM-DD"T"HH24:MI';
  return db.query<SeriesRow>(
    `WITH ${seriesCtes(window.interval, { from: '$2', to: '$3', tz: '$4::text' })},
     agg AS (
       SELECT ${localBucketSql('c.bucket', window.interval, '$4::text')} AS bucket, ${SUMS}
       FROM email_counts c, bounds
       WHERE c.project_id = $1 AND c.bucket >= bounds.lo AND c.bucket < bounds.hi ${campaignFilter}
       GROUP BY 1
     )
     SELECT s.bucket, to_char(s.bucket AT TIME ZONE $4::text, '${labelFormat}') AS label, bounds.lo, bounds.hi,
            ${EMAIL_METRIC_COLUMNS.map((column) => `coalesce(a.${column}, 0)::bigint AS ${column}`).join(', ')}
     FROM series s CROSS JOIN bounds LEFT JOIN agg a ON a.bucket = s.bucket
     WHERE s.bucket < bounds.hi
     ORDER BY s.bucket`,
    params,
  );
}

/** Email metrics summed over [from, to), to the 15-minute grain of the rollup. */
export async function emailTotals(db: Queryable, projectId: string, from: Date, to: Date): Promise<EmailMetricRow> {
  const rows = await db.query<EmailMetricRow>(
    `SELECT ${SUMS} FROM email_counts c
     WHERE c.project_id = $1 AND c.bucket >= ${BUCKET_SQL('$2::timestamptz')} AND c.bucket < $3::timestamptz`,
    [projectId, from.toISOString(), to.toISOString()],
  );
  return rows[0]!;
}

export type CampaignTotalsRow = EmailMetricRow & { campaign_id: string; name: string | null; status: string | null; last_activity: Date };

/**
 * Email metrics per campaign over [from, to), with the campaign's name and status (null when the
 * campaign was deleted since). `campaignId` narrows it to one.
 */
export async function campaignTotals(db: Queryable, projectId: string, from: Date, to: Date, campaignId?: string): Promise<CampaignTotalsRow[]> {
  const params: unknown[] = [projectId, from.toISOString(), to.toISOString(), NO_CAMPAIGN];
  let campaignFilter = '';
  if (campaignId) {
    params.push(campaignId);
    campaignFilter = `AND c.campaign_id = $${params.length}::uuid`;
  }
  return db.query<CampaignTotalsRow>(
    `WITH sums AS (
       SELECT c.campaign_id, max(c.bucket) AS last_activity, ${SUMS}
       FROM email_counts c
       WHERE c.project_id = $1 AND c.bucket >= ${BUCKET_SQL('$2::timestamptz')} AND c.bucket < $3::timestamptz
         AND c.campaign_id <> $4::uuid ${campaignFilter}
       GROUP BY c.campaign_id
     )
     SELECT s.*, k.name, k.status
     FROM sums s LEFT JOIN campaigns k ON k.project_id = $1 AND k.id = s.campaign_id
     ORDER BY s.last_activity DESC, s.campaign_id`,
    params,
  );
}

export async function findCampaign(db: Queryable, projectId: string, campaignId: string): Promise<{ id: string; name: string; status: string } | undefined> {
  const rows = await db.query<{ id: string; name: string; status: string }>('SELECT id, name, status FROM campaigns WHERE project_id = $1 AND id = $2', [projectId, campaignId]);
  return rows[0];
}

// Names the service emits itself (the API reference (Events)); everything else was tracked.
const SERVICE_EVENT = `'^(email\\.|contact\\.(un)?subscribed$|segment\\..+\\.(entry|exit)$)'`;
export const serviceEventSql = (column: string) => `${column} ~* ${SERVICE_EVENT}`;

/**
 * Event names by count over [from, to), most frequent first. Names deleted since
 * (DELETE /events/{name} forgets the name) are left out.
 */
export async function topEvents(
  db: Queryable,
  projectId: string,
  window: { from: Date; to: Date },
  options: { includeService: boolean; limit: number },
): Promise<Array<{ name: string; count: number }>> {
  return db.query(
    `SELECT c.name, sum(c.count)::bigint AS count FROM event_counts c
     WHERE c.project_id = $1 AND c.bucket >= ${BUCKET_SQL('$2::timestamptz')} AND c.bucket < $3::timestamptz
       ${options.includeService ? '' : `AND NOT ${serviceEventSql('c.name')}`}
       AND EXISTS (SELECT 1 FROM event_names n WHERE n.project_id = c.project_id AND n.name = c.name)
     GROUP BY c.name
     ORDER BY count DESC, c.name
     LIMIT $4`,
    [projectId, window.from.toISOString(), window.to.toISOString(), options.limit],
  );
}

/** Events per name over [from, to) for the names given (activity stats: subscription changes). */
export async function countEventsNamed(db: Queryable, projectId: string, from: Date, to: Date, names: string[]): Promise<Map<string, number>> {
  const rows = await db.query<{ name: string; count: number }>(
    `SELECT name, sum(count)::bigint AS count FROM event_counts
     WHERE project_id = $1 AND bucket >= ${BUCKET_SQL('$2::timestamptz')} AND bucket < $3::timestamptz AND name = ANY($4::text[])
     GROUP BY name`,
    [projectId, from.toISOString(), to.toISOString(), names],
  );
  return new Map(rows.map((row) => [row.name, row.count]));
}

/** Tracked (non-service) events over [from, to). */
export async function countCustomEvents(db: Queryable, projectId: string, from: Date, to: Date): Promise<number> {
  const rows = await db.query<{ count: number }>(
    `SELECT coalesce(sum(count), 0)::bigint AS count FROM event_counts
     WHERE project_id = $1 AND bucket >= ${BUCKET_SQL('$2::timestamptz')} AND bucket < $3::timestamptz AND NOT ${serviceEventSql('name')}`,
    [projectId, from.toISOString(), to.toISOString()],
  );
  return rows[0]!.count;
}
