import type { Queryable } from '../db/index.ts';

/** campaign_id of email_counts rows for mail no campaign sent. */
export const NO_CAMPAIGN = '00000000-0000-0000-0000-000000000000';

/** The 15-minute bucket (UTC) an instant falls in: the grain of every rollup table. */
export const BUCKET_SQL = (column: string) => `date_bin('15 minutes', ${column}, timestamptz '2000-01-01 00:00:00+00')`;

export type WatermarkState = { watermark: Date | null; bound: Date };

/**
 * Locks the events watermark for this run (a second worker waits here, then sees the advanced
 * watermark, so no event is counted twice) and reads the safe upper bound: now, or the start of
 * the oldest transaction still open on the database, whichever is earlier. An event's created_at
 * is its transaction's start, so an event not yet committed is never older than that bound.
 * PGlite has one connection and no other transaction can be open.
 */
export async function lockWatermark(tx: Queryable): Promise<WatermarkState> {
  const rows = await tx.query<{ watermark: Date | null; bound: Date }>(
    `SELECT CASE WHEN watermark = '-infinity' THEN NULL ELSE watermark END AS watermark,
            least(clock_timestamp(), (
              SELECT min(xact_start) FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL
            )) AS bound
     FROM rollup_watermarks WHERE name = 'events' FOR UPDATE`,
  );
  const row = rows[0];
  if (!row) throw new Error('rollup_watermarks has no events row (migration 0014)');
  return { watermark: row.watermark ? new Date(row.watermark) : null, bound: new Date(row.bound) };
}

/**
 * Holds the rollup until the caller's transaction ends (a project reset): a run in progress is
 * waited for, and none starts, so no count of deleted events is written after the reset.
 */
export async function pauseRollup(tx: Queryable): Promise<void> {
  await tx.query(`SELECT 1 FROM rollup_watermarks WHERE name = 'events' FOR UPDATE`);
}

/**
 * The earliest event at or after `from` (any project), so a run skips empty stretches instead of
 * walking them: one index probe per project (events_project_created_idx). The projects are those
 * with a name in event_names (every statement that inserts events records their names), not
 * `projects`: on Citus a LIMIT in a LATERAL over a reference table cannot run on the nodes, and
 * over a co-located table it runs on each node for the projects there.
 */
export async function nextEventAt(tx: Queryable, from: Date | null): Promise<Date | null> {
  const rows = await tx.query<{ at: Date | null }>(
    `SELECT min(first.created_at) AS at FROM (SELECT project_id FROM event_names GROUP BY project_id) p
     CROSS JOIN LATERAL (
       SELECT created_at FROM events e
       WHERE e.project_id = p.project_id AND ($1::timestamptz IS NULL OR e.created_at >= $1::timestamptz)
       ORDER BY e.created_at LIMIT 1
     ) first`,
    [from?.toISOString() ?? null],
  );
  const at = rows[0]?.at;
  return at ? new Date(at) : null;
}

export async function setWatermark(tx: Queryable, to: Date): Promise<void> {
  await tx.query(`UPDATE rollup_watermarks SET watermark = $1 WHERE name = 'events'`, [to.toISOString()]);
}

/** Email metrics of one chunk's events, from the service events of docs/decisions/sending.md. */
const EMAIL_METRICS = {
  // Reached the receiving side: accepted, or refused there at SMTP time (a hard bounce of a record
  // that was never accepted; a bounce reported later by SES follows an email.sent already counted).
  attempted: `b.name = 'email.sent' OR (b.name = 'email.bounced' AND b.data->>'bounceType' = 'hard' AND m.sent_at IS NULL)`,
  sent: `b.name = 'email.sent'`,
  delivered: `b.name = 'email.delivered'`,
  opened: `b.name = 'email.opened'`,
  unique_opened: `b.name = 'email.opened' AND b.data->>'firstOpen' = 'true'`,
  clicked: `b.name = 'email.clicked'`,
  // The first click sets clicked_at to its transaction's now(), the event's created_at.
  unique_clicked: `b.name = 'email.clicked' AND m.clicked_at = b.created_at`,
  bounced: `b.name = 'email.bounced' AND b.data->>'bounceType' = 'hard'`,
  soft_bounced: `b.name = 'email.bounced' AND b.data->>'bounceType' IS DISTINCT FROM 'hard'`,
  complained: `b.name = 'email.complained'`,
  failed: `b.name = 'email.failed'`,
  suppressed: `b.name = 'email.suppressed'`,
} as const;

export const EMAIL_METRIC_COLUMNS = Object.keys(EMAIL_METRICS) as Array<keyof typeof EMAIL_METRICS>;

const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/**
 * Adds the events created in [from, to) to the rollups and moves the watermark to `to`, in one
 * statement (so counts and watermark commit together: each event is counted exactly once).
 * Returns how many events it counted, and the projects whose sends, bounces or complaints grew
 * (for the reputation check).
 */
export async function applyChunk(tx: Queryable, from: Date, to: Date): Promise<{ events: number; projects: string[] }> {
  const columns = EMAIL_METRIC_COLUMNS.join(', ');
  const sums = EMAIL_METRIC_COLUMNS.map((column) => `count(*) FILTER (WHERE ${EMAIL_METRICS[column]})`).join(',\n              ');
  const updates = EMAIL_METRIC_COLUMNS.map((column) => `${column} = c.${column} + EXCLUDED.${column}`).join(', ');
  const rows = await tx.query<{ events: number; projects: string[] }>(
    `WITH batch AS (
       SELECT e.project_id, e.name, e.data, e.email_id, e.created_at, ${BUCKET_SQL('e.created_at')} AS bucket
       FROM projects p
       CROSS JOIN LATERAL (
         SELECT project_id, name, data, email_id, created_at FROM events
         WHERE project_id = p.id AND created_at >= $1::timestamptz AND created_at < $2::timestamptz
       ) e
     ), named AS (
       INSERT INTO event_counts AS c (project_id, name, bucket, count)
       SELECT project_id, name, bucket, count(*) FROM batch GROUP BY 1, 2, 3
       ON CONFLICT (project_id, name, bucket) DO UPDATE SET count = c.count + EXCLUDED.count
     ), totals AS (
       INSERT INTO event_totals AS c (project_id, name, count)
       SELECT project_id, name, count(*) FROM batch GROUP BY 1, 2
       ON CONFLICT (project_id, name) DO UPDATE SET count = c.count + EXCLUDED.count
     ), mail AS (
       INSERT INTO email_counts AS c (project_id, campaign_id, bucket, ${columns})
       SELECT b.project_id,
              CASE WHEN b.data->>'campaignId' ~ '${UUID_PATTERN}' THEN (b.data->>'campaignId')::uuid ELSE '${NO_CAMPAIGN}'::uuid END,
              b.bucket,
              ${sums}
       FROM batch b
       LEFT JOIN emails m ON b.name IN ('email.clicked', 'email.bounced') AND m.project_id = b.project_id AND m.id = b.email_id
       WHERE b.name LIKE 'email.%'
       GROUP BY 1, 2, 3
       ON CONFLICT (project_id, campaign_id, bucket) DO UPDATE SET ${updates}
     ), streams AS (
       -- The same counts of reputation per stream (docs/decisions/reputation.md), the stream read from the record.
       INSERT INTO stream_counts AS c (project_id, stream, bucket, attempted, bounced, complained)
       SELECT b.project_id, m.stream, b.bucket,
              count(*) FILTER (WHERE ${EMAIL_METRICS.attempted}),
              count(*) FILTER (WHERE ${EMAIL_METRICS.bounced}),
              count(*) FILTER (WHERE ${EMAIL_METRICS.complained})
       FROM batch b
       JOIN emails m ON m.project_id = b.project_id AND m.id = b.email_id
       WHERE b.name IN ('email.sent', 'email.bounced', 'email.complained')
       GROUP BY 1, 2, 3
       ON CONFLICT (project_id, stream, bucket) DO UPDATE SET
         attempted = c.attempted + EXCLUDED.attempted, bounced = c.bounced + EXCLUDED.bounced, complained = c.complained + EXCLUDED.complained
     ), mark AS (
       UPDATE rollup_watermarks SET watermark = $2::timestamptz WHERE name = 'events'
     )
     SELECT (SELECT count(*) FROM batch)::bigint AS events,
            (SELECT coalesce(json_agg(DISTINCT project_id), '[]'::json) FROM batch WHERE name IN ('email.sent', 'email.bounced', 'email.complained')) AS projects`,
    [from.toISOString(), to.toISOString()],
  );
  return rows[0]!;
}
