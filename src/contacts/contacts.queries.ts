import type { Queryable } from '../db/index.ts';
import { containsPattern } from '../db/like.ts';
import { cursorTimestampSql } from '../pagination.ts';
import type { ContactRow } from './contacts.schemas.ts';

/** A written contact with what the write did to it: whether it was new, and `subscribed` before. */
export type WrittenContact = ContactRow & { is_new: boolean; was_subscribed: boolean | null };

export type DataWrite = { set: Record<string, unknown>; unset: string[] };

/**
 * Upsert by email as CTEs ending in `written` (the contact, `is_new`, and `was_subscribed`), for
 * statements that go on to write more (/v1/track). Parameters: $1 project, $2 email,
 * $3 subscribed (null = keep), $4 subscribed when new, $5 data to set (jsonb), $6 keys to unset.
 * `old` locks the existing row first (FOR UPDATE, so concurrent writers queue and each sees the
 * previous one's result); the insert reads `old` so it runs after. Data write rules as SQL:
 * `(data || set) - unset`. An explicit `subscribed` ends a snooze.
 */
export const UPSERT_CONTACT_CTES = `old AS (
       SELECT id, subscribed FROM contacts WHERE project_id = $1 AND email = $2 FOR UPDATE
     ), upserted AS (
       INSERT INTO contacts AS c (project_id, email, subscribed, data)
       SELECT $1, $2, coalesce($3::boolean, $4::boolean), $5::jsonb - $6::text[]
       FROM (SELECT count(*) FROM old) AS old_first
       ON CONFLICT (project_id, email) DO UPDATE SET
         subscribed = coalesce($3::boolean, c.subscribed),
         snoozed_until = CASE WHEN $3::boolean IS NULL THEN c.snoozed_until END,
         data = (c.data || $5::jsonb) - $6::text[],
         updated_at = excluded.updated_at
       RETURNING c.*, c.xmax::text = '0' AS is_new
     ), written AS (
       SELECT u.*, o.subscribed AS was_subscribed FROM upserted u LEFT JOIN old o ON o.id = u.id
     )`;

export type ContactUpsert = { email: string; subscribed: boolean | null; subscribedWhenNew: boolean; data: DataWrite };

export const upsertContactParams = (projectId: string, input: ContactUpsert) => [
  projectId,
  input.email,
  input.subscribed,
  input.subscribedWhenNew,
  JSON.stringify(input.data.set),
  input.data.unset,
];

/** Upsert by email (POST /contacts, and later /v1/send) in one statement; see UPSERT_CONTACT_CTES. */
export async function upsertContactByEmail(db: Queryable, projectId: string, input: ContactUpsert): Promise<WrittenContact> {
  const rows = await db.query<WrittenContact>(`WITH ${UPSERT_CONTACT_CTES} SELECT * FROM written`, upsertContactParams(projectId, input));
  return rows[0]!;
}

/**
 * The SELECT of an `old` CTE: the existing contacts named by the CTE `input` (project_id, email),
 * locked in (project, email) order. Each is looked up by its own probe of the (project_id, email)
 * unique index (LATERAL): a join left to the planner hashed a sequential scan of the whole table
 * whenever its statistics were older than the table's growth (measured: 6 of the 8 ms of a
 * 24-request /v1/track write on a 25k-contact table).
 */
export const LOCK_EXISTING_CONTACTS = (columns: string, project = 'i.project_id') =>
  `SELECT ${columns}
       FROM (SELECT DISTINCT project_id, email FROM input ORDER BY project_id, email) AS i
       CROSS JOIN LATERAL (
         SELECT project_id, id, email, subscribed FROM contacts
         WHERE project_id = ${project} AND email = i.email
         FOR UPDATE
       ) AS c`;

/** One address of a many-contact upsert (upsertContactsByEmail). */
export type ContactUpsertRow = { projectId: string; email: string; set: Record<string, unknown> };
/** What a many-contact upsert returns per row, in the order given. */
export type UpsertedContact = Pick<ContactRow, 'id' | 'email' | 'subscribed' | 'data'> & { is_new: boolean; was_subscribed: boolean | null };

/**
 * upsertContactByEmail for many addresses at once (group-committed /v1/send), one statement for
 * rows sharing `subscribed` and `unset`, which are bound once rather than looked up per row (a
 * correlated lookup in ON CONFLICT would cost rows²). At most one row per (project, email).
 * Existing rows are locked first and inserts run in the same (project, email) order, so two such
 * statements running at once lock in one order.
 */
export async function upsertContactsByEmail(
  db: Queryable,
  rows: ContactUpsertRow[],
  shared: { subscribed: boolean | null; subscribedWhenNew: boolean; unset: string[] },
  options: { oneProject?: boolean } = {},
): Promise<UpsertedContact[]> {
  if (rows.length === 0) return [];
  // On Citus a row lock needs the project as a constant (docs/architecture.md): the rows are then
  // all of one project, bound once as $5.
  const project = options.oneProject ? '$5::uuid' : 'i.project_id';
  const input = rows.map((row, ord) => ({ ord, project_id: row.projectId, email: row.email, set: row.set }));
  const written = await db.query<UpsertedContact & { ord: number }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(ord int, project_id uuid, email text, set jsonb)
     ), old AS (
       ${LOCK_EXISTING_CONTACTS('c.project_id, c.email, c.subscribed', project)}
     ), upserted AS (
       INSERT INTO contacts AS c (project_id, email, subscribed, data)
       SELECT ${project}, i.email, coalesce($2::boolean, $3::boolean), i.set - $4::text[]
       FROM input i, (SELECT count(*) FROM old) AS old_first
       ORDER BY i.project_id, i.email
       ON CONFLICT (project_id, email) DO UPDATE SET
         subscribed = coalesce($2::boolean, c.subscribed),
         snoozed_until = CASE WHEN $2::boolean IS NULL THEN c.snoozed_until END,
         data = (c.data || excluded.data) - $4::text[],
         updated_at = excluded.updated_at
       RETURNING c.project_id, c.id, c.email, c.subscribed, c.data, c.xmax::text = '0' AS is_new
     )
     SELECT i.ord, u.id, u.email, u.subscribed, u.data, u.is_new, o.subscribed AS was_subscribed
     FROM input i
     JOIN upserted u ON u.project_id = i.project_id AND u.email = i.email
     LEFT JOIN old o ON o.project_id = i.project_id AND o.email = i.email`,
    [JSON.stringify(input), shared.subscribed, shared.subscribedWhenNew, shared.unset, ...(options.oneProject ? [rows[0]!.projectId] : [])],
  );
  const byOrd = new Map(written.map(({ ord, ...contact }) => [ord, contact]));
  return rows.map((_, ord) => byOrd.get(ord)!);
}

export type ContactPatch = {
  email: string | null;
  subscribed: boolean | null;
  /** `snooze`: subscribed false until `snoozedUntil`; `end`: a running snooze ends now. */
  snooze: { mode: 'snooze'; until: string } | { mode: 'end' } | null;
  data: DataWrite;
};

/**
 * PATCH /contacts/{id} in one statement; `was_subscribed` is the locked previous value, so the
 * caller emits a subscription event exactly on change. Undefined when the contact is not in the
 * project. Explicit `subscribed: true` ends a snooze; `subscribed: false` makes it permanent.
 */
export async function updateContact(db: Queryable, projectId: string, id: string, patch: ContactPatch): Promise<WrittenContact | undefined> {
  const mode = patch.snooze?.mode ?? null;
  const until = patch.snooze?.mode === 'snooze' ? patch.snooze.until : null;
  const rows = await db.query<WrittenContact>(
    `WITH old AS (
       SELECT id, subscribed FROM contacts WHERE project_id = $1 AND id = $2 FOR UPDATE
     )
     UPDATE contacts AS c SET
       email = coalesce($3::text, c.email),
       subscribed = CASE
         WHEN $5::text = 'snooze' THEN false
         WHEN $5::text = 'end' AND c.snoozed_until IS NOT NULL AND $4::boolean IS NULL THEN true
         ELSE coalesce($4::boolean, c.subscribed) END,
       snoozed_until = CASE
         WHEN $5::text = 'snooze' THEN $6::timestamptz
         WHEN $5::text = 'end' OR $4::boolean IS NOT NULL THEN NULL
         ELSE c.snoozed_until END,
       data = (c.data || $7::jsonb) - $8::text[],
       updated_at = now()
     FROM old
     WHERE c.project_id = $1 AND c.id = old.id
     RETURNING c.*, false AS is_new, old.subscribed AS was_subscribed`,
    [projectId, id, patch.email, patch.subscribed, mode, until, JSON.stringify(patch.data.set), patch.data.unset],
  );
  return rows[0];
}

export async function findContact(db: Queryable, projectId: string, id: string): Promise<ContactRow | undefined> {
  const rows = await db.query<ContactRow>('SELECT * FROM contacts WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rows[0];
}

/**
 * Deletes a contact; its email records stay, without it. The statement detaches them itself: on
 * Citus the key's ON DELETE SET NULL cannot exist (it would null project_id too).
 */
export async function deleteContact(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    `WITH detached AS (UPDATE emails SET contact_id = NULL WHERE project_id = $1 AND contact_id = $2)
     DELETE FROM contacts WHERE project_id = $1 AND id = $2 RETURNING id`,
    [projectId, id],
  );
  return rows.length > 0;
}

/**
 * Ends the due snoozes among these contacts (contacts.snooze-end): still snoozed and due only, so
 * a snooze that was moved, ended or made permanent in the meantime is left alone.
 */
export async function endDueSnoozes(db: Queryable, projectId: string, ids: string[]): Promise<{ id: string }[]> {
  return db.query<{ id: string }>(
    `UPDATE contacts SET subscribed = true, snoozed_until = NULL, updated_at = now()
     WHERE project_id = $1 AND id = ANY($2::uuid[]) AND snoozed_until IS NOT NULL AND snoozed_until <= now()
     RETURNING id`,
    [projectId, ids],
  );
}

export type ContactListQuery = {
  search?: string;
  subscribed?: boolean;
  sort: 'email' | 'createdAt';
  dir: 'asc' | 'desc';
  after?: { value: string; id: string };
  limit: number;
};

/** Keyset listing (no OFFSET): rows after the cursor position in (sort value, id) order. */
export async function listContacts(db: Queryable, projectId: string, query: ContactListQuery): Promise<(ContactRow & { sort_key: string })[]> {
  const { where, params } = contactFilters(projectId, query);
  const column = query.sort === 'email' ? 'email' : 'created_at';
  const op = query.dir === 'asc' ? '>' : '<';
  if (query.after) {
    params.push(query.after.value, query.after.id);
    const cast = query.sort === 'email' ? 'text' : 'timestamptz';
    where.push(`(${column}, id) ${op} ($${params.length - 1}::${cast}, $${params.length}::uuid)`);
  }
  params.push(query.limit);
  const sortKey = query.sort === 'email' ? 'email' : cursorTimestampSql('created_at');
  return db.query(
    `SELECT *, ${sortKey} AS sort_key FROM contacts WHERE ${where.join(' AND ')}
     ORDER BY ${column} ${query.dir}, id ${query.dir} LIMIT $${params.length}`,
    params,
  );
}

export async function countContacts(db: Queryable, projectId: string, query: Pick<ContactListQuery, 'search' | 'subscribed'>): Promise<number> {
  const { where, params } = contactFilters(projectId, query);
  const rows = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM contacts WHERE ${where.join(' AND ')}`, params);
  return rows[0]!.total;
}

function contactFilters(projectId: string, query: Pick<ContactListQuery, 'search' | 'subscribed'>) {
  const where = ['project_id = $1'];
  const params: unknown[] = [projectId];
  if (query.search) {
    // Emails are stored lower-cased, so a lower-cased LIKE is the case-insensitive substring match.
    params.push(containsPattern(query.search.toLowerCase()));
    where.push(`email LIKE $${params.length}`);
  }
  if (query.subscribed !== undefined) {
    params.push(query.subscribed);
    where.push(`subscribed = $${params.length}`);
  }
  return { where, params };
}
