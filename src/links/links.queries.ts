import { type Queryable, queryOne } from '../db/index.ts';

/** What an email.* event about a record carries beside emailId (docs/decisions/sending.md). */
export type EmailSource = { campaign_id: string | null; template_id: string | null; workflow_id: string | null };

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
  return queryOne<Omit<LinkContact, 'project_name' | 'snoozed_until'> & { was_subscribed: boolean; email_found: boolean } & EmailSource>(
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
