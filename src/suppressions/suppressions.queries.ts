import type { Queryable } from '../db/index.ts';
import { containsPattern } from '../db/like.ts';
import { cursorTimestampSql } from '../pagination.ts';

/** Why an address is on the list; stored lower-case, shown upper-case (docs/decisions/sending.md). */
export type StoredReason = 'hard_bounce' | 'complaint' | 'manual';

export type SuppressionRow = {
  email: string;
  reason: StoredReason;
  email_id: string | null;
  created_at: Date | string;
  /** created_at as the cursor's text (microseconds, UTC). */
  sort_key: string;
};

const COLUMNS = `email, reason, email_id, created_at, ${cursorTimestampSql('created_at')} AS sort_key`;

/** Newest first, keyset over (created_at, email); `search` is a case-insensitive substring of the address. */
export async function listSuppressions(
  db: Queryable,
  projectId: string,
  query: { search?: string; before?: { value: string; id: string }; limit: number },
): Promise<SuppressionRow[]> {
  const where = ['project_id = $1'];
  const params: unknown[] = [projectId];
  if (query.search) {
    params.push(containsPattern(query.search));
    where.push(`email ILIKE $${params.length}`);
  }
  if (query.before) {
    params.push(query.before.value, query.before.id);
    where.push(`(created_at, email) < ($${params.length - 1}::timestamptz, $${params.length}::text)`);
  }
  params.push(query.limit);
  return db.query<SuppressionRow>(
    `SELECT ${COLUMNS} FROM suppressions WHERE ${where.join(' AND ')}
     ORDER BY created_at DESC, email DESC LIMIT $${params.length}`,
    params,
  );
}

export async function countSuppressions(db: Queryable, projectId: string, search: string | undefined): Promise<number> {
  const rows = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM suppressions WHERE project_id = $1 AND ($2::text IS NULL OR email ILIKE $2)`, [
    projectId,
    search ? containsPattern(search) : null,
  ]);
  return rows[0]!.count;
}

/**
 * Adds one address; an address already on the list keeps its entry (its first reason and record).
 * Returns the entry and whether this call made it. The cursor's text is made outside the INSERT's
 * RETURNING: Citus refuses a non-immutable function (to_char) there.
 */
export async function insertSuppression(tx: Queryable, projectId: string, email: string, reason: StoredReason): Promise<SuppressionRow & { created: boolean }> {
  const rows = await tx.query<SuppressionRow & { created: boolean }>(
    `WITH added AS (
       INSERT INTO suppressions (project_id, email, reason) VALUES ($1, $2, $3)
       ON CONFLICT (project_id, email) DO NOTHING
       RETURNING email, reason, email_id, created_at
     )
     SELECT ${COLUMNS}, true AS created FROM added
     UNION ALL
     SELECT ${COLUMNS}, false AS created FROM suppressions WHERE project_id = $1 AND email = $2 AND NOT EXISTS (SELECT 1 FROM added)`,
    [projectId, email, reason],
  );
  return rows[0]!;
}

/** Removes one address; the entry it removed, if there was one. */
export async function deleteSuppression(tx: Queryable, projectId: string, email: string): Promise<Pick<SuppressionRow, 'reason' | 'email_id'> | undefined> {
  const rows = await tx.query<Pick<SuppressionRow, 'reason' | 'email_id'>>(`DELETE FROM suppressions WHERE project_id = $1 AND email = $2 RETURNING reason, email_id`, [
    projectId,
    email,
  ]);
  return rows[0];
}

/**
 * Puts addresses on their projects' lists, each with the record that bounced or was complained
 * about (hard bounces, complaints: docs/decisions/sending.md). An address already listed keeps its entry.
 */
export async function suppressAddresses(
  tx: Queryable,
  entries: Array<{ projectId: string; email: string; emailId: string | null }>,
  reason: 'hard_bounce' | 'complaint',
): Promise<void> {
  if (entries.length === 0) return;
  await tx.query(
    `INSERT INTO suppressions (project_id, email, reason, email_id)
     SELECT DISTINCT ON (r.project_id, lower(r.email)) r.project_id, lower(r.email), $2, r.email_id
       FROM jsonb_to_recordset($1::jsonb) AS r(project_id uuid, email text, email_id uuid)
     ON CONFLICT (project_id, email) DO NOTHING`,
    [JSON.stringify(entries.map((e) => ({ project_id: e.projectId, email: e.email, email_id: e.emailId }))), reason],
  );
}

/**
 * Unsubscribes the project's contacts with these ids or addresses for good: a running snooze ends
 * without resubscribing. Returns the contacts that were subscribed, for their contact.unsubscribed
 * events.
 */
export async function unsubscribeForSuppression(tx: Queryable, projectId: string, target: { contactIds?: string[]; emails?: string[] }): Promise<string[]> {
  const contactIds = target.contactIds ?? [];
  const emails = target.emails ?? [];
  if (contactIds.length === 0 && emails.length === 0) return [];
  const rows = await tx.query<{ id: string; was: boolean }>(
    `WITH old AS (
       SELECT id, subscribed FROM contacts
        WHERE project_id = $1 AND (id = ANY($2::uuid[]) OR email = ANY($3::text[]))
          FOR UPDATE
     )
     UPDATE contacts AS c SET subscribed = false, snoozed_until = NULL, updated_at = now()
     FROM old WHERE c.project_id = $1 AND c.id = old.id AND (c.subscribed OR c.snoozed_until IS NOT NULL)
     RETURNING c.id, old.subscribed AS was`,
    [projectId, contactIds, emails],
  );
  return rows.filter((row) => row.was).map((row) => row.id);
}
