import { type Db, type Queryable, queryOne } from '../db/index.ts';
import type { EmailRow } from './emails.queries.ts';

/**
 * The status transitions of an email record (docs/decisions/sending.md, "Hand-off states"), in SQL:
 * QUEUED → SENDING is the claim (src/delivery/delivery.queries.ts); SENDING → handed off, and the
 * settlement (DELIVERED, BOUNCED, FAILED, or QUEUED again) with its events, are writeHandOffs; a
 * cancelled campaign's unsent records → FAILED are failUnsentOfCampaign, and its records deferred
 * after the cancel failRequeuedOfCancelled; a DSN's refusal after
 * delivery → FAILED is failDelivered (email-feedback.ts); an open or a click (OPENED, CLICKED and
 * their counters) are countOpen and countClick (email-tracking.ts); marketing records held by a
 * paused project fall due again on resume with releaseHeldMarketing; SES and DSN outcomes after
 * the hand-off are email-feedback.queries.ts.
 */

export type ClaimRef = { project_id: string; id: string; attempts: number };

export const refsJson = (refs: ClaimRef[]) => JSON.stringify(refs.map((r) => ({ project_id: r.project_id, id: r.id, attempts: r.attempts })));

/** A record about to be handed over, with what is written on it at the hand-off. */
export type HandingRef = ClaimRef & {
  /** The subject it was rendered with at delivery (campaigns); null keeps the stored one. */
  subject: string | null;
  /** The URLs its click links lead to (links.md); null when it is not tracked. */
  linkUrls: string[] | null;
};

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
 * One group commit of the hand-offs (src/delivery/hand-off.ts): marks and settlements in one statement, so a
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

/**
 * Cancel mid-send (docs/decisions/campaigns.md): records not yet handed to the transport never leave. QUEUED ones,
 * and SENDING ones a worker holds but has not handed over (its hand-off and settlement are fenced
 * on status SENDING, so it drops them), become FAILED with `error`. Returns how many.
 */
export async function failUnsentOfCampaign(tx: Queryable, projectId: string, campaignId: string, error: string): Promise<number> {
  const rows = await tx.query<{ n: number }>(
    `WITH failed AS (
       UPDATE emails SET status = 'FAILED', last_error = $3
       WHERE project_id = $1 AND campaign_id = $2 AND (status = 'QUEUED' OR (status = 'SENDING' AND handed_off_at IS NULL))
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM failed`,
    [projectId, campaignId, error],
  );
  return rows[0]?.n ?? 0;
}

/** The error of a campaign record deferred by the relay after its campaign was cancelled. */
export const REQUEUED_CANCELLED_ERROR = 'The relay deferred this message, and the campaign was cancelled before it was tried again; it was not sent.';

/**
 * A campaign record the relay deferred (a 4xx, a lost connection) goes back to the queue; when its
 * campaign was cancelled meanwhile it becomes FAILED instead of being tried again, so nothing of a
 * cancelled campaign leaves after the cancel (docs/decisions/campaigns.md, "Cancel mid-send"). The
 * cancel fails what is queued when it commits; this catches a record queued again after that. The
 * campaign is read FOR SHARE: a cancel under way holds its row, so this waits for the cancel's
 * commit and then reads CANCELLED.
 */
export async function failRequeuedOfCancelled(db: Db, ref: { project_id: string; id: string; campaign_id: string }): Promise<void> {
  await db.transaction(async (tx) => {
    const campaign = await queryOne<{ status: string }>(tx, 'SELECT status FROM campaigns WHERE project_id = $1 AND id = $2 FOR SHARE', [ref.project_id, ref.campaign_id]);
    if (campaign?.status !== 'CANCELLED') return;
    await tx.query(`UPDATE emails SET status = 'FAILED', last_error = $3 WHERE project_id = $1 AND id = $2 AND status = 'QUEUED'`, [
      ref.project_id,
      ref.id,
      REQUEUED_CANCELLED_ERROR,
    ]);
  });
}

/**
 * A DSN's refusal about the sender or the message (5.7.x and the like, docs/decisions/sending.md, docs/smtp.md): FAILED with the
 * reason, unless the record already bounced, was complained about or failed. The contact, when it
 * changed, for the email.failed event.
 */
export async function failDelivered(tx: Queryable, projectId: string, emailId: string, error: string): Promise<{ contact_id: string | null } | undefined> {
  const rows = await tx.query<{ contact_id: string | null }>(
    `UPDATE emails SET status = 'FAILED', last_error = $3
     WHERE project_id = $1 AND id = $2 AND status NOT IN ('BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED')
     RETURNING contact_id`,
    [projectId, emailId, error],
  );
  return rows[0];
}

/** What an email.* event about a record carries beside emailId (docs/decisions/sending.md). */
export type EmailSource = Pick<EmailRow, 'contact_id' | 'campaign_id' | 'template_id' | 'workflow_id'>;

/**
 * Counts an open: every open adds to `opens`; the first sets opened_at and moves SENT/DELIVERED
 * to OPENED (later states such as CLICKED or BOUNCED stay). The row is locked first so
 * `first_open` is exact when two opens race. The time comes from the `clock` CTE (here and in
 * countClick): Citus refuses now() inside coalesce in a write.
 */
export async function countOpen(db: Queryable, projectId: string, emailId: string) {
  return queryOne<EmailSource & { first_open: boolean }>(
    db,
    `WITH clock AS MATERIALIZED (SELECT now() AS now),
     old AS (SELECT id, opened_at FROM emails WHERE project_id = $1 AND id = $2 FOR UPDATE)
     UPDATE emails e SET
       opens = e.opens + 1,
       opened_at = coalesce(e.opened_at, clock.now),
       status = CASE WHEN e.status IN ('SENT', 'DELIVERED') THEN 'OPENED' ELSE e.status END
     FROM old, clock WHERE e.project_id = $1 AND e.id = old.id
     RETURNING e.contact_id, e.campaign_id, e.template_id, e.workflow_id, old.opened_at IS NULL AS first_open`,
    [projectId, emailId],
  );
}

/**
 * Counts a click on the URL at `index` of the message's list, and returns that URL; nothing when
 * the message has no such URL (the redirect then answers 404). SENT, DELIVERED and OPENED move to
 * CLICKED.
 */
export async function countClick(db: Queryable, projectId: string, emailId: string, index: number) {
  return queryOne<EmailSource & { url: string }>(
    db,
    `WITH clock AS MATERIALIZED (SELECT now() AS now),
     link AS (SELECT link_urls ->> $3::int AS url FROM emails WHERE project_id = $1 AND id = $2)
     UPDATE emails e SET
       clicks = e.clicks + 1,
       clicked_at = coalesce(e.clicked_at, clock.now),
       status = CASE WHEN e.status IN ('SENT', 'DELIVERED', 'OPENED') THEN 'CLICKED' ELSE e.status END
     FROM link, clock WHERE e.project_id = $1 AND e.id = $2 AND link.url IS NOT NULL
     RETURNING link.url, e.contact_id, e.campaign_id, e.template_id, e.workflow_id`,
    [projectId, emailId, index],
  );
}

/** The URL at `index` of the message's list without counting anything (HEAD requests of link scanners). */
export async function findLinkUrl(db: Queryable, projectId: string, emailId: string, index: number) {
  const row = await queryOne<{ url: string | null }>(db, 'SELECT link_urls ->> $3::int AS url FROM emails WHERE project_id = $1 AND id = $2', [projectId, emailId, index]);
  return row?.url ?? null;
}

/**
 * The marketing records held by a pause fall due now (resumed): QUEUED with the pause's note
 * (`notePrefix`) as their last error.
 */
export async function releaseHeldMarketing(tx: Queryable, projectId: string, notePrefix: string): Promise<void> {
  await tx.query(
    `UPDATE emails SET next_attempt_at = now(), last_error = NULL
     WHERE project_id = $1 AND stream = 'marketing' AND status = 'QUEUED' AND starts_with(last_error, $2)`,
    [projectId, notePrefix],
  );
}
