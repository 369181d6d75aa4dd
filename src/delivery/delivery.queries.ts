import type { Queryable } from '../db/index.ts';
import type { EmailRow } from '../emails/emails.queries.ts';
import { dueProjects as dueProjectsOf } from '../jobs/project-rotation.queries.ts';

/**
 * Claims up to `limit` due records, oldest first, across projects or in the one project `projectId`
 * names (on Citus, which locks rows only in a statement for one project: see dueProjects), with
 * FOR UPDATE SKIP LOCKED (concurrent workers take disjoint rows), for the worker instance
 * `claimedBy`: QUEUED ones whose time has come, and
 * SENDING ones whose lease expired or whose worker died (src/jobs/instances.ts). Each becomes
 * SENDING with a lease of `leaseSeconds` and attempts + 1; `attempts` is the claim's fencing token,
 * checked by every later write; `transactionalOnly` leaves marketing records alone. A record still marked handed off was in an SMTP transaction whose
 * answer never came: it is sent again with the same Message-ID (docs/decisions/sending.md), and `resends` counts it.
 */
export async function claimDue(db: Queryable, limit: number, leaseSeconds: number, claimedBy: number, projectId?: string, transactionalOnly = false): Promise<EmailRow[]> {
  // Both tables name the project, so Citus routes the whole statement to the project's node.
  let [inDue, inEmails] = projectId ? ['AND project_id = $4', 'AND e.project_id = $4'] : ['', ''];
  // The transactional lane (docs/streams.md), on emails_due_transactional_idx.
  if (transactionalOnly) inDue += " AND stream = 'transactional'";
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

/** dueProjects of transactional records only, for the transactional lane (docs/streams.md). */
export const dueTransactionalProjects = (db: Queryable, scan: number) =>
  dueProjectsOf(db, { table: 'emails', due: 'next_attempt_at', where: "status IN ('QUEUED', 'SENDING') AND stream = 'transactional'" }, scan);

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

/** An event a settlement records (docs/decisions/sending.md service events); its email and project are the settlement's. */
export type SettledEvent = { id: string; contactId: string; name: string; data: Record<string, unknown> };

/**
 * What a claim ends with; `retryAt` for QUEUED, `refund` when the claim did not count as an
 * attempt, `events` what it records if it lands (none when the claim was lost).
 */
export type Settlement = ClaimRef & {
  status: 'DELIVERED' | 'BOUNCED' | 'FAILED' | 'QUEUED';
  error: string | null;
  retryAt?: string;
  refund?: boolean;
  events?: SettledEvent[];
};

export type SettledRow = Pick<EmailRow, 'project_id' | 'id' | 'contact_id' | 'to_address' | 'status'>;

/**
 * One group commit of the hand-offs (hand-off.ts): marks and settlements in one statement, so a
 * message's answer and the mark of the message that takes its permit commit together.
 *
 * A mark is committed just before its message goes to the transport (docs/decisions/sending.md: a record counts
 * as handed only while its own SMTP transaction is in flight). `held` are the ids this worker still
 * holds; a record not in it was taken over and must not be sent. The mark also writes what the
 * message is sent with: the subject of a record rendered at delivery, so GET /emails/{id} shows
 * what each recipient got, and the tracked URLs, so a click can never arrive before its list. It
 * changes no indexed column, so PostgreSQL updates the row in place (HOT, with the free space
 * `fillfactor` leaves on each page) instead of adding an entry to each of the table's indexes.
 *
 * A settlement records the outcome of a claim, fenced by `attempts` so a worker that lost its
 * lease cannot overwrite its successor, and the events of those that landed, with their names and,
 * with `dispatch`, a dispatch row per project for the event subscribers. `settled` are the rows it
 * changed. A hand-off's permit waits for this statement, so it is one round trip: as a transaction
 * of a statement per table it took twice as long under load.
 */
export async function writeHandOffs(
  db: Queryable,
  writes: { marks: HandingRef[]; settlements: Settlement[]; dispatch: boolean },
): Promise<{ held: Set<string>; settled: SettledRow[] }> {
  const { marks, settlements, dispatch } = writes;
  if (marks.length === 0 && settlements.length === 0) return { held: new Set(), settled: [] };
  const events = settlements
    .flatMap((s) => (s.events ?? []).map((e) => ({ project_id: s.project_id, email_id: s.id, id: e.id, contact_id: e.contactId, name: e.name, data: e.data })))
    .map((event, ord) => ({ ord, ...event }));
  const rows = await db.query<SettledRow & { marked: boolean }>(
    `WITH clock AS MATERIALIZED (SELECT now() AS now),
     marked AS (
       UPDATE emails AS e SET
         handed_off_at = clock.now,
         subject = coalesce(e.subject, h.subject),
         link_urls = coalesce(h.link_urls, e.link_urls)
       FROM jsonb_to_recordset($1::jsonb) AS h(project_id uuid, id uuid, attempts int, subject text, link_urls jsonb), clock
       WHERE e.project_id = h.project_id AND e.id = h.id AND e.attempts = h.attempts AND e.status = 'SENDING'
       RETURNING e.project_id, e.id
     ), settled AS (
       UPDATE emails AS e SET
         status = s.status,
         last_error = s.error,
         attempts = e.attempts - CASE WHEN s.refund THEN 1 ELSE 0 END,
         next_attempt_at = coalesce(s.retry_at, e.next_attempt_at),
         handed_off_at = CASE WHEN s.status = 'QUEUED' THEN NULL ELSE e.handed_off_at END,
         sent_at = CASE WHEN s.status = 'DELIVERED' THEN clock.now ELSE e.sent_at END,
         delivered_at = CASE WHEN s.status = 'DELIVERED' THEN clock.now ELSE e.delivered_at END,
         bounced_at = CASE WHEN s.status = 'BOUNCED' THEN clock.now ELSE e.bounced_at END
       FROM jsonb_to_recordset($2::jsonb) AS s(project_id uuid, id uuid, attempts int, status text, error text, retry_at timestamptz, refund boolean), clock
       WHERE e.project_id = s.project_id AND e.id = s.id AND e.attempts = s.attempts AND e.status = 'SENDING'
       RETURNING e.project_id, e.id, e.contact_id, e.to_address, e.status
     ), proposed AS (
       SELECT * FROM jsonb_to_recordset($3::jsonb) AS v(ord int, project_id uuid, email_id uuid, id uuid, contact_id uuid, name text, data jsonb)
     ), inserted AS (
       INSERT INTO events (project_id, id, contact_id, name, data, email_id)
       SELECT v.project_id, v.id, v.contact_id, v.name, v.data, v.email_id
       FROM proposed v JOIN settled ON settled.project_id = v.project_id AND settled.id = v.email_id
       RETURNING project_id, id, name
     ), names AS (
       INSERT INTO event_names (project_id, name) SELECT DISTINCT project_id, name FROM inserted ON CONFLICT DO NOTHING
     ), dispatched AS (
       INSERT INTO event_dispatch (project_id, event_ids)
       SELECT i.project_id, array_agg(i.id ORDER BY v.ord) FROM inserted i JOIN proposed v ON v.project_id = i.project_id AND v.id = i.id
       WHERE $4 GROUP BY i.project_id
     )
     SELECT true AS marked, project_id, id, NULL::uuid AS contact_id, NULL AS to_address, NULL AS status FROM marked
     UNION ALL
     SELECT false, project_id, id, contact_id, to_address, status FROM settled`,
    [
      JSON.stringify(marks.map((r) => ({ project_id: r.project_id, id: r.id, attempts: r.attempts, subject: r.subject, link_urls: r.linkUrls }))),
      JSON.stringify(
        settlements.map((s) => ({
          project_id: s.project_id,
          id: s.id,
          attempts: s.attempts,
          status: s.status,
          error: s.error,
          retry_at: s.retryAt ?? null,
          refund: s.refund ?? false,
        })),
      ),
      JSON.stringify(events),
      dispatch,
    ],
  );
  return {
    held: new Set(rows.filter((row) => row.marked).map((row) => row.id)),
    settled: rows.filter((row) => !row.marked).map(({ marked: _, ...row }) => row),
  };
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
