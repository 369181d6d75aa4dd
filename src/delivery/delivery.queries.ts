import type { Queryable } from '../db/index.ts';
import type { EmailRow } from '../emails/emails.queries.ts';

/**
 * Claims up to `limit` due records across projects (FOR UPDATE SKIP LOCKED: concurrent workers
 * take disjoint rows) for the worker instance `claimedBy`: QUEUED ones whose time has come, and
 * SENDING ones whose lease expired or whose worker died (src/jobs/instances.ts). Each becomes
 * SENDING with a lease of `leaseSeconds` and attempts + 1; `attempts` is the claim's fencing token,
 * checked by every later write. A record still marked handed off was in an SMTP transaction whose
 * answer never came: it is sent again with the same Message-ID (contract §6), and `resends` counts it.
 */
export async function claimDue(db: Queryable, limit: number, leaseSeconds: number, claimedBy: number): Promise<EmailRow[]> {
  return db.query<EmailRow>(
    `WITH due AS (
       SELECT project_id, id FROM emails
       WHERE status IN ('QUEUED', 'SENDING') AND next_attempt_at <= now()
       ORDER BY next_attempt_at
       LIMIT $1
       FOR UPDATE SKIP LOCKED
     )
     UPDATE emails AS e SET status = 'SENDING', attempts = e.attempts + 1, next_attempt_at = now() + make_interval(secs => $2),
       claimed_by = $3, resends = e.resends + (e.handed_off_at IS NOT NULL)::int, handed_off_at = NULL
     FROM due WHERE e.project_id = due.project_id AND e.id = due.id
     RETURNING e.*`,
    [limit, leaseSeconds, claimedBy],
  );
}

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

export type ClaimRef = { project_id: string; id: string; attempts: number };

const refsJson = (refs: ClaimRef[]) => JSON.stringify(refs.map((r) => ({ project_id: r.project_id, id: r.id, attempts: r.attempts })));

/** A record about to be handed over, with what is written on it at the hand-off. */
export type HandingRef = ClaimRef & {
  /** The subject it was rendered with at delivery (campaigns); null keeps the stored one. */
  subject: string | null;
  /** The URLs its click links lead to (links.md); null when it is not tracked. */
  linkUrls: string[] | null;
};

/**
 * Committed just before each message goes to the transport (contract §6: a record counts as handed
 * only while its own SMTP transaction is in flight), for the messages of one group commit
 * (hand-off.ts). Returns the ids this worker still holds; a record not returned was taken over and
 * must not be sent. The same statement writes what the message is sent with: the subject of a
 * record rendered at delivery, so GET /emails/{id} shows what each recipient got, and the tracked
 * URLs, so a click can never arrive before its list.
 *
 * It changes no indexed column, so PostgreSQL updates the rows in place (HOT, with the free space
 * `fillfactor` leaves on each page) instead of adding an entry to each of the table's indexes.
 */
export async function markHandedOff(db: Queryable, handing: HandingRef[]): Promise<Set<string>> {
  if (handing.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(
    `UPDATE emails AS e SET
       handed_off_at = now(),
       subject = coalesce(e.subject, h.subject),
       link_urls = coalesce(h.link_urls, e.link_urls)
     FROM jsonb_to_recordset($1::jsonb) AS h(project_id uuid, id uuid, attempts int, subject text, link_urls jsonb)
     WHERE e.project_id = h.project_id AND e.id = h.id AND e.attempts = h.attempts AND e.status = 'SENDING'
     RETURNING e.id`,
    [JSON.stringify(handing.map((r) => ({ project_id: r.project_id, id: r.id, attempts: r.attempts, subject: r.subject, link_urls: r.linkUrls })))],
  );
  return new Set(rows.map((row) => row.id));
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

/** What a claim ends with; `retryAt` for QUEUED, `refund` when the claim did not count as an attempt. */
export type Settlement = ClaimRef & { status: 'DELIVERED' | 'BOUNCED' | 'FAILED' | 'QUEUED'; error: string | null; retryAt?: string; refund?: boolean };

export type SettledRow = Pick<EmailRow, 'project_id' | 'id' | 'contact_id' | 'to_address' | 'status' | 'template_id' | 'campaign_id' | 'workflow_id' | 'last_error'>;

/**
 * Records the outcome of claims in one statement, fenced by `attempts` so a worker that lost its
 * lease cannot overwrite its successor. Returns the rows it changed (their events are emitted).
 */
export async function settle(db: Queryable, settlements: Settlement[]): Promise<SettledRow[]> {
  if (settlements.length === 0) return [];
  return db.query<SettledRow>(
    `UPDATE emails AS e SET
       status = s.status,
       last_error = s.error,
       attempts = e.attempts - CASE WHEN s.refund THEN 1 ELSE 0 END,
       next_attempt_at = coalesce(s.retry_at, e.next_attempt_at),
       handed_off_at = CASE WHEN s.status = 'QUEUED' THEN NULL ELSE e.handed_off_at END,
       sent_at = CASE WHEN s.status = 'DELIVERED' THEN now() ELSE e.sent_at END,
       delivered_at = CASE WHEN s.status = 'DELIVERED' THEN now() ELSE e.delivered_at END,
       bounced_at = CASE WHEN s.status = 'BOUNCED' THEN now() ELSE e.bounced_at END
     FROM jsonb_to_recordset($1::jsonb) AS s(project_id uuid, id uuid, attempts int, status text, error text, retry_at timestamptz, refund boolean)
     WHERE e.project_id = s.project_id AND e.id = s.id AND e.attempts = s.attempts AND e.status = 'SENDING'
     RETURNING e.project_id, e.id, e.contact_id, e.to_address, e.status, e.template_id, e.campaign_id, e.workflow_id, e.last_error`,
    [JSON.stringify(settlements.map((s) => ({ ...s, retry_at: s.retryAt ?? null, refund: s.refund ?? false })))],
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
