import type { Queryable } from '../db/index.ts';
import { containsPattern } from '../db/like.ts';
import { cursorTimestampSql } from '../pagination.ts';
import type { ContactPredicate } from './contact-condition.ts';
import type { ContactRow } from './contacts.schemas.ts';

/** A written contact with what the write did to it: whether it was new, and `subscribed` before. */
export type WrittenContact = ContactRow & { is_new: boolean; was_subscribed: boolean | null };

export type DataWrite = { set: Record<string, unknown>; unset: string[] };

export type ContactUpsert = { email: string; subscribed: boolean | null; subscribedWhenNew: boolean; data: DataWrite };

/** Parameters of upsertContactByEmail's write: $1 project, $2 email, $3 subscribed (null = keep), $4 subscribed when new, $5 data to set, $6 keys to unset. */
const upsertContactParams = (projectId: string, input: ContactUpsert) => [
  projectId,
  input.email,
  input.subscribed,
  input.subscribedWhenNew,
  JSON.stringify(input.data.set),
  input.data.unset,
];

/**
 * Upsert by email (POST /contacts), inside the caller's transaction: returns the
 * contact, `is_new`, and `was_subscribed`. The existing row is locked first (FOR UPDATE, so
 * concurrent writers queue and each sees the previous one's result), then written by one
 * `INSERT … ON CONFLICT`. Data write rules as SQL: `(data || set) - unset`; an explicit
 * `subscribed` ends a snooze. Two statements with the project written in, rather than one with a
 * locking CTE, so that Citus runs each on the project's node alone (docs/architecture.md).
 */
export async function upsertContactByEmail(tx: Queryable, projectId: string, input: ContactUpsert): Promise<WrittenContact> {
  const [old] = await tx.query<{ subscribed: boolean }>('SELECT subscribed FROM contacts WHERE project_id = $1 AND email = $2 FOR UPDATE', [projectId, input.email]);
  const [written] = await tx.query<ContactRow & { is_new: boolean }>(
    `INSERT INTO contacts AS c (project_id, email, subscribed, data)
     VALUES ($1, $2, coalesce($3::boolean, $4::boolean), $5::jsonb - $6::text[])
     ON CONFLICT (project_id, email) DO UPDATE SET
       subscribed = coalesce($3::boolean, c.subscribed),
       snoozed_until = CASE WHEN $3::boolean IS NULL THEN c.snoozed_until END,
       data = (c.data || $5::jsonb) - $6::text[],
       updated_at = excluded.updated_at
     RETURNING c.*, c.xmax::text = '0' AS is_new`,
    upsertContactParams(projectId, input),
  );
  return { ...written!, was_subscribed: old?.subscribed ?? null };
}

/**
 * The SELECT of an `old` CTE: the existing contacts named by the CTE `input` (project_id, email),
 * locked in (project, email) order. Each is looked up by its own probe of the (project_id, email)
 * unique index (LATERAL): a join left to the planner hashed a sequential scan of the whole table
 * whenever its statistics were older than the table's growth (measured: 6 of the 8 ms of a
 * 24-request /v1/track write on a 25k-contact table).
 */
export const LOCK_EXISTING_CONTACTS = (columns: string) =>
  `SELECT ${columns}
       FROM (SELECT DISTINCT project_id, email FROM input ORDER BY project_id, email) AS i
       CROSS JOIN LATERAL (
         SELECT project_id, id, email, subscribed FROM contacts
         WHERE project_id = i.project_id AND email = i.email
         FOR UPDATE
       ) AS c`;

/** One address of a many-contact upsert (upsertContactsByEmail). */
export type ContactUpsertRow = { projectId: string; email: string; set: Record<string, unknown> };
/** What a many-contact upsert returns per row, in the order given. */
export type UpsertedContact = Pick<ContactRow, 'id' | 'email' | 'subscribed' | 'data'> & { is_new: boolean; was_subscribed: boolean | null };

/**
 * Locks the existing contacts of one project with these addresses, in address order (a router
 * statement on Citus), and returns what they hold. For writes of several statements that must
 * lock in one order.
 */
export async function lockContactsByEmail(tx: Queryable, projectId: string, emails: string[]) {
  return tx.query<{ project_id: string; email: string; subscribed: boolean }>(
    'SELECT project_id, email, subscribed FROM contacts WHERE project_id = $1 AND email = ANY($2::text[]) ORDER BY email FOR UPDATE',
    [projectId, emails],
  );
}

// Rows per upsert statement: 2 or 3 parameters each, well under PostgreSQL's 65,535.
const CONTACTS_PER_UPSERT = 1_000;

/**
 * upsertContactByEmail for many addresses at once (group-committed /v1/send and, on Citus,
 * /v1/track; the CSV import), inside the caller's transaction; at most one row per (project,
 * email). Rows share `subscribed` and `unset`, which are bound once rather than looked up per row
 * (a correlated lookup in ON CONFLICT would cost rows², and Citus refuses it). The existing rows
 * are locked first, in (project, email) order, and inserted in the same order, so two such writes
 * lock in one order. With `oneProject` every row is of one project, written in as a constant: both
 * statements are then router statements on Citus, which locks rows only so.
 */
export async function upsertContactsByEmail(
  tx: Queryable,
  rows: ContactUpsertRow[],
  shared: { subscribed: boolean | null; subscribedWhenNew: boolean; unset: string[] },
  options: { oneProject?: boolean } = {},
): Promise<UpsertedContact[]> {
  if (rows.length === 0) return [];
  const sorted = [...rows].sort((x, y) => (x.projectId === y.projectId ? compare(x.email, y.email) : compare(x.projectId, y.projectId)));
  const old = options.oneProject
    ? await lockContactsByEmail(
        tx,
        rows[0]!.projectId,
        sorted.map((row) => row.email),
      )
    : await tx.query<{ project_id: string; email: string; subscribed: boolean }>(
        `WITH input AS (SELECT * FROM unnest($1::uuid[], $2::text[]) AS i(project_id, email))
         ${LOCK_EXISTING_CONTACTS('c.project_id, c.email, c.subscribed')}`,
        [sorted.map((row) => row.projectId), sorted.map((row) => row.email)],
      );
  const was = new Map(old.map((row) => [`${row.project_id} ${row.email}`, row.subscribed]));
  const written = new Map<string, Omit<UpsertedContact, 'was_subscribed'>>();
  for (let start = 0; start < sorted.length; start += CONTACTS_PER_UPSERT) {
    // $1 subscribed (null = keep), $2 subscribed when new, $3 keys to unset, then the rows.
    const params: unknown[] = [shared.subscribed, shared.subscribedWhenNew, shared.unset];
    if (options.oneProject) params.push(rows[0]!.projectId);
    const values = sorted.slice(start, start + CONTACTS_PER_UPSERT).map((row) => {
      const project = options.oneProject ? '$4::uuid' : `$${params.push(row.projectId)}::uuid`;
      params.push(row.email, JSON.stringify(row.set));
      return `(${project}, $${params.length - 1}, coalesce($1::boolean, $2::boolean), $${params.length}::jsonb - $3::text[])`;
    });
    const upserted = await tx.query<Omit<UpsertedContact, 'was_subscribed'> & { project_id: string }>(
      `INSERT INTO contacts AS c (project_id, email, subscribed, data) VALUES ${values.join(', ')}
       ON CONFLICT (project_id, email) DO UPDATE SET
         subscribed = coalesce($1::boolean, c.subscribed),
         snoozed_until = CASE WHEN $1::boolean IS NULL THEN c.snoozed_until END,
         data = (c.data || excluded.data) - $3::text[],
         updated_at = excluded.updated_at
       RETURNING c.project_id, c.id, c.email, c.subscribed, c.data, c.xmax::text = '0' AS is_new`,
      params,
    );
    for (const { project_id, ...contact } of upserted) written.set(`${project_id} ${contact.email}`, contact);
  }
  return rows.map((row) => {
    const key = `${row.projectId} ${row.email}`;
    return { ...written.get(key)!, was_subscribed: was.get(key) ?? null };
  });
}

const compare = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);

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

/** One contact's write of a many-contact update (updateContacts): `subscribed` null keeps it. */
export type ContactDataPatch = { projectId: string; id: string; subscribed: boolean | null; data: DataWrite };

/**
 * updateContact without email or snooze changes, for many contacts in one statement (the workflow
 * engine's UPDATE_CONTACT steps of a batch): the same write rules, `was_subscribed` from each
 * locked row, in the order given; undefined for a contact no longer in its project. At most one
 * patch per contact. The rows are locked in (project, email) order, the order the by-email
 * upserts lock in; with every patch of one project, the project is written in as a constant, so
 * the statement is a router statement on Citus.
 */
export async function updateContacts(tx: Queryable, patches: ContactDataPatch[]): Promise<Array<(WrittenContact & { project_id: string }) | undefined>> {
  if (patches.length === 0) return [];
  const projects = new Set(patches.map((p) => p.projectId));
  const one = projects.size === 1 ? (alias: string) => ` AND ${alias}.project_id = $2::uuid` : () => '';
  const input = patches.map((p) => ({ project_id: p.projectId, id: p.id, subscribed: p.subscribed, set_data: p.data.set, unset_keys: p.data.unset }));
  const rows = await tx.query<WrittenContact & { project_id: string }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(project_id uuid, id uuid, subscribed boolean, set_data jsonb, unset_keys text[])
     ), old AS (
       SELECT c.project_id, c.id, c.subscribed FROM contacts c JOIN input i ON c.project_id = i.project_id AND c.id = i.id${one('c')}
       ORDER BY c.project_id, c.email
       FOR UPDATE OF c
     )
     UPDATE contacts AS c SET
       subscribed = coalesce(i.subscribed, c.subscribed),
       snoozed_until = CASE WHEN i.subscribed IS NOT NULL THEN NULL ELSE c.snoozed_until END,
       data = (c.data || i.set_data) - i.unset_keys,
       updated_at = now()
     FROM input i, old
     WHERE c.project_id = i.project_id AND c.id = i.id AND old.project_id = c.project_id AND old.id = c.id${one('c')}
     RETURNING c.*, false AS is_new, old.subscribed AS was_subscribed`,
    [JSON.stringify(input), ...(projects.size === 1 ? [...projects] : [])],
  );
  const written = new Map(rows.map((row) => [`${row.project_id} ${row.id}`, row]));
  return patches.map((p) => written.get(`${p.projectId} ${p.id}`));
}

export async function findContact(db: Queryable, projectId: string, id: string): Promise<ContactRow | undefined> {
  const rows = await db.query<ContactRow>('SELECT * FROM contacts WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rows[0];
}

/** The contact with an address (a test copy renders with its data when there is one). */
export async function findContactByEmail(db: Queryable, projectId: string, email: string) {
  const rows = await db.query<Pick<ContactRow, 'id' | 'email' | 'data'>>('SELECT id, email, data FROM contacts WHERE project_id = $1 AND email = $2', [projectId, email]);
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
  /** A condition tree's predicate over `contacts c` (src/contacts/contact-condition.ts). */
  selected?: ContactPredicate;
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
    `SELECT c.*, ${sortKey} AS sort_key FROM contacts c WHERE ${where.join(' AND ')}
     ORDER BY ${column} ${query.dir}, id ${query.dir} LIMIT $${params.length}`,
    params,
  );
}

export async function countContacts(db: Queryable, projectId: string, query: Pick<ContactListQuery, 'search' | 'subscribed' | 'selected'>): Promise<number> {
  const { where, params } = contactFilters(projectId, query);
  const rows = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM contacts c WHERE ${where.join(' AND ')}`, params);
  return rows[0]!.total;
}

function contactFilters(projectId: string, query: Pick<ContactListQuery, 'search' | 'subscribed' | 'selected'>) {
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
  if (query.selected) where.push(`(${query.selected(params)})`);
  return { where, params };
}
