import type { Queryable } from '../db/index.ts';

/** The categories of the API reference's billing limits, as the emails table names their source. */
export type BillingCategory = 'TRANSACTIONAL' | 'CAMPAIGN' | 'WORKFLOW';

export const LIMIT_COLUMNS: Record<BillingCategory, 'transactional' | 'campaigns' | 'workflows'> = {
  TRANSACTIONAL: 'transactional',
  CAMPAIGN: 'campaigns',
  WORKFLOW: 'workflows',
};

export type Limits = { transactional: number | null; campaigns: number | null; workflows: number | null };

// The calendar month in UTC, on the database clock.
const MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;
const MONTH_START = `(date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')`;

export async function findLimits(db: Queryable, projectId: string): Promise<Limits> {
  const rows = await db.query<Limits>('SELECT transactional, campaigns, workflows FROM billing_limits WHERE project_id = $1', [projectId]);
  return rows[0] ?? { transactional: null, campaigns: null, workflows: null };
}

/** The cap of one category; null when unlimited. */
export async function findLimit(tx: Queryable, projectId: string, category: BillingCategory): Promise<number | null> {
  const rows = await tx.query<{ cap: number | null }>(`SELECT ${LIMIT_COLUMNS[category]} AS cap FROM billing_limits WHERE project_id = $1`, [projectId]);
  return rows[0]?.cap ?? null;
}

/**
 * Sets the caps given in `changes` (a key absent keeps its value, null removes the cap) and drops
 * this month's counters, so the next send re-seeds them from the emails table: counts taken while
 * a category was unlimited were not kept up to date.
 */
export async function saveLimits(tx: Queryable, projectId: string, changes: Partial<Limits>): Promise<Limits> {
  const value = (key: keyof Limits) => changes[key] ?? null;
  const given = (key: keyof Limits) => key in changes;
  const rows = await tx.query<Limits>(
    `INSERT INTO billing_limits AS l (project_id, transactional, campaigns, workflows) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id) DO UPDATE SET
       transactional = CASE WHEN $5 THEN EXCLUDED.transactional ELSE l.transactional END,
       campaigns = CASE WHEN $6 THEN EXCLUDED.campaigns ELSE l.campaigns END,
       workflows = CASE WHEN $7 THEN EXCLUDED.workflows ELSE l.workflows END,
       updated_at = EXCLUDED.updated_at
     RETURNING transactional, campaigns, workflows`,
    [projectId, value('transactional'), value('campaigns'), value('workflows'), given('transactional'), given('campaigns'), given('workflows')],
  );
  await tx.query(`DELETE FROM billing_usage WHERE project_id = $1 AND month = ${MONTH}`, [projectId]);
  return rows[0]!;
}

/** Adds `count` to this month's counter if it stays within `cap`; the new total, or undefined if it would not. */
export async function takeUsage(tx: Queryable, projectId: string, category: BillingCategory, count: number, cap: number): Promise<number | undefined> {
  const rows = await tx.query<{ used: number }>(
    `UPDATE billing_usage SET used = used + $3
     WHERE project_id = $1 AND month = ${MONTH} AND category = $2 AND used + $3 <= $4
     RETURNING used`,
    [projectId, category, count, cap],
  );
  return rows[0]?.used;
}

/** This month's counter, or undefined when it has not been seeded. */
export async function findUsage(tx: Queryable, projectId: string, category: BillingCategory): Promise<number | undefined> {
  const rows = await tx.query<{ used: number }>(`SELECT used FROM billing_usage WHERE project_id = $1 AND month = ${MONTH} AND category = $2`, [projectId, category]);
  return rows[0]?.used;
}

/**
 * Starts this month's counter at what the emails table holds (records that were not suppressed).
 * A concurrent seeder wins harmlessly (ON CONFLICT DO NOTHING waits for it, then the caller's
 * UPDATE sees its row).
 */
export async function seedUsage(tx: Queryable, projectId: string, category: BillingCategory): Promise<void> {
  await tx.query(
    `INSERT INTO billing_usage (project_id, month, category, used)
     SELECT $1, ${MONTH}, $2, count(*) FROM emails
     WHERE project_id = $1 AND source_type = $2 AND status <> 'SUPPRESSED' AND created_at >= ${MONTH_START}
     ON CONFLICT DO NOTHING`,
    [projectId, category],
  );
}

/** This month's email records per category (not suppressed), straight from the emails table. */
export async function monthConsumption(db: Queryable, projectId: string): Promise<{ usage: Map<BillingCategory, number>; start: Date; end: Date }> {
  const rows = await db.query<{ source_type: BillingCategory | null; count: number; start: Date; end: Date }>(
    `WITH month AS (SELECT ${MONTH_START} AS start, ${MONTH_START} + interval '1 month' AS "end")
     SELECT e.source_type, count(e.*)::bigint AS count, month.start, month."end"
     FROM month LEFT JOIN emails e ON e.project_id = $1 AND e.created_at >= month.start AND e.status <> 'SUPPRESSED'
     GROUP BY e.source_type, month.start, month."end"`,
    [projectId],
  );
  const usage = new Map<BillingCategory, number>();
  for (const row of rows) if (row.source_type) usage.set(row.source_type, row.count);
  return { usage, start: new Date(rows[0]!.start), end: new Date(rows[0]!.end) };
}
