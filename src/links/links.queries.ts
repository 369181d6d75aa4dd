import { type Queryable, queryOne } from '../db/index.ts';

export type MessageUrls = { projectId: string; emailId: string; urls: string[] };

/**
 * Stores the tracked URLs of one instrumented message on its record (`emails.link_urls`).
 * Re-rendering a record (a retried delivery) replaces its list, which instrumentHtml rebuilds
 * identically. The delivery worker does not call this: its hand-off statement writes the lists of
 * a whole chunk (markHandedOff).
 */
export async function saveMessageUrls(db: Queryable, message: MessageUrls): Promise<void> {
  if (message.urls.length === 0) return;
  await db.query('UPDATE emails SET link_urls = $3::jsonb WHERE project_id = $1 AND id = $2', [message.projectId, message.emailId, JSON.stringify(message.urls)]);
}

/** What an email.* event about a record carries beside emailId (docs/decisions/sending.md). */
export type EmailSource = { contact_id: string | null; campaign_id: string | null; template_id: string | null; workflow_id: string | null };

/**
 * Counts an open: every open adds to `opens`; the first sets opened_at and moves SENT/DELIVERED
 * to OPENED (later states such as CLICKED or BOUNCED stay). The row is locked first so
 * `first_open` is exact when two opens race. The time comes from the `clock` CTE (here and in
 * recordClick): Citus refuses now() inside coalesce in a write.
 */
export async function recordOpen(db: Queryable, projectId: string, emailId: string) {
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
export async function recordClick(db: Queryable, projectId: string, emailId: string, index: number) {
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

export type LinkContact = { id: string; email: string; subscribed: boolean; snoozed_until: Date | string | null; project_name: string };

/** The contact a page is about, with its project's name for the page heading. */
export async function findLinkContact(db: Queryable, projectId: string, contactId: string) {
  return queryOne<LinkContact>(
    db,
    `SELECT c.id, c.email, c.subscribed, c.snoozed_until, p.name AS project_name
     FROM contacts c JOIN projects p ON p.id = c.project_id
     WHERE c.project_id = $1 AND c.id = $2`,
    [projectId, contactId],
  );
}

/**
 * Sets `subscribed` from a link, in one statement with the row locked, and returns the previous
 * value (null when the contact is gone). Either answer ends a snooze: unsubscribing makes it
 * permanent, subscribing ends it now. `updated_at` moves only when something changed. The email
 * the link came in (if any) is read along for the event's data. A link without one looks for the
 * nil id, which no record has: with `e.id = NULL` Citus prunes emails away and then refuses the join.
 */
export async function setSubscriptionFromLink(db: Queryable, projectId: string, contactId: string, subscribed: boolean, emailId: string | null) {
  return queryOne<Omit<LinkContact, 'project_name' | 'snoozed_until'> & { was_subscribed: boolean; email_found: boolean } & Omit<EmailSource, 'contact_id'>>(
    db,
    `WITH old AS (
       SELECT id, subscribed, snoozed_until FROM contacts WHERE project_id = $1 AND id = $2 FOR UPDATE
     ), changed AS (
       UPDATE contacts c SET subscribed = $3, snoozed_until = NULL, updated_at = now()
       FROM old WHERE c.project_id = $1 AND c.id = old.id AND (old.subscribed <> $3 OR old.snoozed_until IS NOT NULL)
       RETURNING c.id
     )
     SELECT c.id, c.email, $3::boolean AS subscribed, old.subscribed AS was_subscribed,
            e.id IS NOT NULL AS email_found, e.campaign_id, e.template_id, e.workflow_id
     FROM old JOIN contacts c ON c.project_id = $1 AND c.id = old.id
     LEFT JOIN emails e ON e.project_id = $1 AND e.id = coalesce($4::uuid, '00000000-0000-0000-0000-000000000000')`,
    [projectId, contactId, subscribed, emailId],
  );
}

/** The URL at `index` of the message's list without counting anything (HEAD requests of link scanners). */
export async function findMessageUrl(db: Queryable, projectId: string, emailId: string, index: number) {
  const row = await queryOne<{ url: string | null }>(db, 'SELECT link_urls ->> $3::int AS url FROM emails WHERE project_id = $1 AND id = $2', [projectId, emailId, index]);
  return row?.url ?? null;
}
