import type { Queryable } from '../db/index.ts';
import type { Stream } from '../emails/emails.queries.ts';

export type ReputationCounts = { attempted: number; bounced: number; complained: number };

/**
 * Messages that reached the receiving side, hard bounces and complaints in the 15-minute buckets
 * starting at or after `since` (null: ever), from the rollup (docs/decisions/reputation.md): a few
 * hundred rows a week, never raw events.
 */
export async function reputationCounts(db: Queryable, projectId: string, since: Date | null): Promise<ReputationCounts> {
  const rows = await db.query<ReputationCounts>(
    `SELECT coalesce(sum(attempted), 0)::bigint AS attempted, coalesce(sum(bounced), 0)::bigint AS bounced,
            coalesce(sum(complained), 0)::bigint AS complained
     FROM email_counts WHERE project_id = $1 AND ($2::timestamptz IS NULL OR bucket >= $2::timestamptz)`,
    [projectId, since?.toISOString() ?? null],
  );
  return rows[0]!;
}

/**
 * Of `projectIds`, the enabled ones whose counts over the last 7 days, counting only buckets from
 * the last review on, pass `minimumSends` and reach a critical rate: one statement for a whole
 * rollup run, however many projects sent in it.
 */
export async function findCriticalProjects(
  db: Queryable,
  projectIds: string[],
  limits: { minimumSends: number; bounceRate: number; complaintRate: number },
): Promise<Array<ReputationCounts & { project_id: string }>> {
  return db.query(
    `SELECT c.project_id, sum(c.attempted)::bigint AS attempted, sum(c.bounced)::bigint AS bounced, sum(c.complained)::bigint AS complained
     FROM projects p
     LEFT JOIN project_reputation r ON r.project_id = p.id
     JOIN email_counts c ON c.project_id = p.id AND c.bucket >= greatest(now() - interval '7 days', coalesce(r.reviewed_at, '-infinity'))
     WHERE p.id = ANY($1::uuid[]) AND NOT p.disabled
     GROUP BY c.project_id
     HAVING sum(c.attempted) >= $2
        AND (sum(c.bounced) >= $3 * sum(c.attempted) OR sum(c.complained) >= $4 * sum(c.attempted))`,
    [projectIds, limits.minimumSends, limits.bounceRate, limits.complaintRate],
  );
}

export type ReputationState = {
  disabled: boolean;
  disabledReason: string | null;
  disabledAt: Date | null;
  reviewedAt: Date | null;
  marketingPausedAt: Date | null;
  marketingPausedReason: string | null;
};

export async function findReputationState(db: Queryable, projectId: string): Promise<ReputationState | undefined> {
  const rows = await db.query<ReputationState>(
    `SELECT p.disabled, p.disabled_reason AS "disabledReason", r.disabled_at AS "disabledAt", r.reviewed_at AS "reviewedAt",
            r.marketing_paused_at AS "marketingPausedAt", r.marketing_paused_reason AS "marketingPausedReason"
     FROM projects p LEFT JOIN project_reputation r ON r.project_id = p.id WHERE p.id = $1`,
    [projectId],
  );
  return rows[0];
}

export type StreamCounts = Record<Stream, ReputationCounts>;

/** reputationCounts per stream (stream_counts, counted since migration 0111). */
export async function streamCounts(db: Queryable, projectId: string, since: Date | null): Promise<StreamCounts> {
  const rows = await db.query<ReputationCounts & { stream: Stream }>(
    `SELECT stream, sum(attempted)::bigint AS attempted, sum(bounced)::bigint AS bounced, sum(complained)::bigint AS complained
     FROM stream_counts WHERE project_id = $1 AND ($2::timestamptz IS NULL OR bucket >= $2::timestamptz)
     GROUP BY stream`,
    [projectId, since?.toISOString() ?? null],
  );
  const zero = { attempted: 0, bounced: 0, complained: 0 };
  const of = (stream: Stream) => {
    const row = rows.find((r) => r.stream === stream);
    return row ? { attempted: Number(row.attempted), bounced: Number(row.bounced), complained: Number(row.complained) } : zero;
  };
  return { transactional: of('transactional'), marketing: of('marketing') };
}

/**
 * Of `projectIds`, the enabled ones' counts per stream over the last 7 days, counting only buckets
 * from the last review on (as findCriticalProjects), with whether their marketing is paused.
 */
export async function findStreamWindows(db: Queryable, projectIds: string[]): Promise<Array<ReputationCounts & { project_id: string; stream: Stream; paused: boolean }>> {
  return db.query(
    `SELECT c.project_id, c.stream, sum(c.attempted)::bigint AS attempted, sum(c.bounced)::bigint AS bounced, sum(c.complained)::bigint AS complained,
            bool_or(r.marketing_paused_at IS NOT NULL) AS paused
     FROM projects p
     LEFT JOIN project_reputation r ON r.project_id = p.id
     JOIN stream_counts c ON c.project_id = p.id AND c.bucket >= greatest(now() - interval '7 days', coalesce(r.reviewed_at, '-infinity'))
     WHERE p.id = ANY($1::uuid[]) AND NOT p.disabled
     GROUP BY c.project_id, c.stream`,
    [projectIds],
  );
}

/** Pauses the project's marketing mail with the reason; false when it already was paused. */
export async function pauseMarketing(tx: Queryable, projectId: string, reason: string): Promise<boolean> {
  const rows = await tx.query(
    `INSERT INTO project_reputation AS r (project_id, marketing_paused_at, marketing_paused_reason) VALUES ($1, now(), $2)
     ON CONFLICT (project_id) DO UPDATE SET marketing_paused_at = EXCLUDED.marketing_paused_at, marketing_paused_reason = EXCLUDED.marketing_paused_reason
     WHERE r.marketing_paused_at IS NULL
     RETURNING r.project_id`,
    [projectId, reason],
  );
  return rows.length > 0;
}

/** Resumes paused marketing mail, as a review: earlier sends no longer count. False when it was not paused. */
export async function resumeMarketing(tx: Queryable, projectId: string): Promise<boolean> {
  const rows = await tx.query(
    `UPDATE project_reputation SET marketing_paused_at = NULL, marketing_paused_reason = NULL, reviewed_at = now()
     WHERE project_id = $1 AND marketing_paused_at IS NOT NULL RETURNING project_id`,
    [projectId],
  );
  return rows.length > 0;
}

/** The projects among `projectIds` whose marketing mail is paused, with the reason. */
export async function findPausedMarketing(db: Queryable, projectIds: string[]): Promise<Map<string, string>> {
  const rows = await db.query<{ project_id: string; reason: string | null }>(
    `SELECT project_id, marketing_paused_reason AS reason FROM project_reputation WHERE project_id = ANY($1::uuid[]) AND marketing_paused_at IS NOT NULL`,
    [projectIds],
  );
  return new Map(rows.map((row) => [row.project_id, row.reason ?? '']));
}

/** Disables a project that is not disabled yet, giving the reason; false when it already was. */
export async function disableForReputation(tx: Queryable, projectId: string, reason: string): Promise<boolean> {
  const rows = await tx.query(
    `WITH disabled AS (
       UPDATE projects SET disabled = true, disabled_reason = $2, updated_at = now() WHERE id = $1 AND NOT disabled RETURNING id
     )
     INSERT INTO project_reputation AS r (project_id, disabled_at) SELECT id, now() FROM disabled
     ON CONFLICT (project_id) DO UPDATE SET disabled_at = EXCLUDED.disabled_at
     RETURNING r.project_id`,
    [projectId, reason],
  );
  return rows.length > 0;
}

/** Re-enabled by a member: earlier sends no longer count towards disabling it again. */
export async function markReviewed(tx: Queryable, projectId: string): Promise<void> {
  await tx.query(
    `INSERT INTO project_reputation AS r (project_id, reviewed_at) VALUES ($1, now())
     ON CONFLICT (project_id) DO UPDATE SET reviewed_at = EXCLUDED.reviewed_at, disabled_at = NULL`,
    [projectId],
  );
}
