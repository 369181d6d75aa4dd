import type { Queryable } from '../db/index.ts';
import { type ClaimRef, refsJson } from '../emails/email-status.queries.ts';
import type { EmailRow } from '../emails/emails.queries.ts';
import { dueProjects as dueProjectsOf } from '../jobs/project-rotation.queries.ts';

/**
 * Claims up to `limit` due records, oldest first, across projects or in the one project `projectId`
 * names (on Citus, which locks rows only in a statement for one project: see dueProjects), with
 * FOR UPDATE SKIP LOCKED (concurrent workers take disjoint rows), for the worker instance
 * `claimedBy`: QUEUED ones whose time has come, and
 * SENDING ones whose lease expired or whose worker died (src/jobs/instances.ts). Each becomes
 * SENDING with a lease of `leaseSeconds` and attempts + 1; `attempts` is the claim's fencing token,
 * checked by every later write. A record still marked handed off was in an SMTP transaction whose
 * answer never came: it is sent again with the same Message-ID (docs/decisions/sending.md), and `resends` counts it.
 */
export async function claimDue(db: Queryable, limit: number, leaseSeconds: number, claimedBy: number, projectId?: string): Promise<EmailRow[]> {
  // Both tables name the project, so Citus routes the whole statement to the project's node.
  const [inDue, inEmails] = projectId ? ['AND project_id = $4', 'AND e.project_id = $4'] : ['', ''];
  return db.query<EmailRow>(
    `WITH due AS (
       SELECT project_id, id FROM emails
       WHERE status IN ('QUEUED', 'SENDING') AND next_attempt_at <= now() ${inDue}
       ORDER BY next_attempt_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     )
     UPDATE emails AS e SET status = 'SENDING', attempts = e.attempts + 1, next_attempt_at = now() + make_interval(secs => $2),
       claimed_by = $3, resends = e.resends + (e.handed_off_at IS NOT NULL)::int, handed_off_at = NULL
     FROM due WHERE e.project_id = due.project_id AND e.id = due.id ${inEmails}
     RETURNING e.*`,
    [limit, leaseSeconds, claimedBy, ...(projectId ? [projectId] : [])],
  );
}

/** The projects with due records, the project of the oldest first (src/jobs/project-rotation.queries.ts). */
export const dueProjects = (db: Queryable, scan: number) => dueProjectsOf(db, { table: 'emails', due: 'next_attempt_at', where: "status IN ('QUEUED', 'SENDING')" }, scan);

/** The claims of dead worker instances fall due now, for the live workers to take over. */
export async function releaseClaimsOf(db: Queryable, instances: number[]): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `WITH released AS (
       UPDATE emails SET next_attempt_at = now()
       WHERE status = 'SENDING' AND claimed_by = ANY($1::int[]) AND next_attempt_at > now()
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM released`,
    [instances],
  );
  return rows[0]?.n ?? 0;
}

/** Renews the lease of the claimed records not yet settled (a chunk waits for permits and the relay). */
export async function renewLeases(db: Queryable, held: ClaimRef[], leaseSeconds: number): Promise<void> {
  if (held.length === 0) return;
  await db.query(
    `UPDATE emails AS e SET next_attempt_at = now() + make_interval(secs => $2)
     FROM jsonb_to_recordset($1::jsonb) AS c(project_id uuid, id uuid, attempts int)
     WHERE e.project_id = c.project_id AND e.id = c.id AND e.attempts = c.attempts AND e.status = 'SENDING'`,
    [refsJson(held), leaseSeconds],
  );
}

export type AttachmentRow = {
  email_id: string;
  filename: string;
  content_type: string;
  content_id: string | null;
  disposition: 'attachment' | 'inline';
  content: Uint8Array;
};

/** The attachments of claimed records, in request order. */
export async function loadAttachments(db: Queryable, refs: ClaimRef[]): Promise<AttachmentRow[]> {
  if (refs.length === 0) return [];
  return db.query<AttachmentRow>(
    `SELECT a.email_id, a.filename, a.content_type, a.content_id, a.disposition, a.content
     FROM email_attachments a
     JOIN jsonb_to_recordset($1::jsonb) AS c(project_id uuid, id uuid, attempts int) ON a.project_id = c.project_id AND a.email_id = c.id
     ORDER BY a.email_id, a.position`,
    [refsJson(refs)],
  );
}

/** When the next record falls due (a retry or an expired lease), for the wake-up job. */
export async function nextDueAt(db: Queryable): Promise<Date | null> {
  const rows = await db.query<{ at: Date | string | null }>(`SELECT min(next_attempt_at) AS at FROM emails WHERE status IN ('QUEUED', 'SENDING')`);
  const at = rows[0]?.at;
  return at ? new Date(at) : null;
}
