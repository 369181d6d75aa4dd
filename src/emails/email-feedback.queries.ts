import type { Queryable } from '../db/index.ts';

/** An email record a feedback report is about; `changed` is false when it already had this outcome. */
export type MatchedEmail = {
  project_id: string;
  id: string;
  contact_id: string | null;
  to_address: string;
  campaign_id: string | null;
  template_id: string | null;
  workflow_id: string | null;
  changed: boolean;
};

const RETURNED = 'e.project_id, e.id, e.contact_id, e.to_address, e.campaign_id, e.template_id, e.workflow_id';

// Per outcome: the timestamp column it sets once, and the status it moves to (docs/decisions/sending.md statuses).
// A complaint outranks everything; a hard bounce everything but a complaint; a delivery only
// replaces the states before it (an opened or bounced record stays so).
const OUTCOMES = {
  bounce: { column: 'bounced_at', status: `CASE WHEN e.status IN ('BOUNCED', 'COMPLAINED') THEN e.status ELSE 'BOUNCED' END` },
  complaint: { column: 'complained_at', status: `'COMPLAINED'` },
  delivery: { column: 'delivered_at', status: `CASE WHEN e.status IN ('QUEUED', 'SENDING', 'SENT') THEN 'DELIVERED' ELSE e.status END` },
} as const;

export type Outcome = keyof typeof OUTCOMES;

/**
 * Applies a reported outcome to the records carrying one of `messageIds` (the Message-ID header,
 * with and without angle brackets). Idempotent: the timestamp is set only once, and `changed`
 * tells whether this call set it. `at` null means now. The records are found without a lock, then
 * locked and written one project at a time: on Citus a row lock needs the project as a constant
 * (the time then comes from the `clock` CTE, as Citus refuses now() inside coalesce in a write).
 */
export async function applyOutcome(tx: Queryable, outcome: Outcome, messageIds: string[], at: string | null, error: string | null) {
  const { column, status } = OUTCOMES[outcome];
  const projects = await tx.query<{ project_id: string }>(`SELECT DISTINCT project_id FROM emails WHERE message_id = ANY($1::text[]) ORDER BY project_id`, [messageIds]);
  const matched: MatchedEmail[] = [];
  for (const { project_id } of projects) {
    const rows = await tx.query<MatchedEmail>(
      `WITH clock AS MATERIALIZED (SELECT now() AS now), target AS (
         SELECT id, ${column} AS was FROM emails WHERE project_id = $4 AND message_id = ANY($1::text[]) FOR UPDATE
       )
       UPDATE emails e
          SET status = ${status},
              ${column} = coalesce(e.${column}, $2::timestamptz, clock.now),
              last_error = CASE WHEN $3::text IS NULL THEN e.last_error ELSE coalesce(e.last_error, $3::text) END
         FROM target t, clock
        WHERE e.project_id = $4 AND e.id = t.id
        RETURNING ${RETURNED}, (t.was IS NULL) AS changed`,
      [messageIds, at, error, project_id],
    );
    matched.push(...rows);
  }
  return matched;
}

/** The records carrying one of `messageIds`, unchanged (a transient bounce only records an event). */
export function findReported(tx: Queryable, messageIds: string[]) {
  return tx.query<MatchedEmail>(`SELECT ${RETURNED}, true AS changed FROM emails e WHERE e.message_id = ANY($1::text[])`, [messageIds]);
}
