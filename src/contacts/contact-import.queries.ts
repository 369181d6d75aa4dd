import { copyText, type Queryable, queryOne } from '../db/index.ts';
import { lockContactsByEmail, upsertContactsByEmail } from './contacts.queries.ts';
import type { Primitive } from './data-rules.ts';

export async function insertImportFile(db: Queryable, projectId: string, jobId: string, content: Buffer) {
  await db.query(`INSERT INTO contact_import_files (project_id, job_id, content) VALUES ($1, $2, $3)`, [projectId, jobId, content]);
}

export async function findImportFile(db: Queryable, projectId: string, jobId: string): Promise<Buffer | undefined> {
  const row = await queryOne<{ content: Uint8Array }>(db, `SELECT content FROM contact_import_files WHERE project_id = $1 AND job_id = $2`, [projectId, jobId]);
  // pg gives a Buffer, PGlite a Uint8Array.
  return row ? Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength) : undefined;
}

export async function deleteImportFile(db: Queryable, projectId: string, jobId: string) {
  await db.query(`DELETE FROM contact_import_files WHERE project_id = $1 AND job_id = $2`, [projectId, jobId]);
}

export async function setJobTotal(db: Queryable, projectId: string, jobId: string, total: number) {
  await db.query(`UPDATE contact_jobs SET total = $3 WHERE project_id = $1 AND id = $2`, [projectId, jobId, total]);
}

/** One contact to upsert: `subscribed` null when the file does not say (keep, or true when new). */
export type ImportRow = { email: string; subscribed: boolean | null; data: Record<string, Primitive> };

export type UpsertedContact = { id: string; subscribed: boolean; was: boolean | null };

/** The staging table of one batch: a temporary table of the transaction's connection, dropped at its commit. */
const STAGING_TABLE = 'contact_import_rows';
const STAGING_COLUMNS = ['email', 'subscribed', 'data', 'fresh'] as const;

/**
 * Fills the batch's staging table: by COPY where the database handle offers it (PostgreSQL,
 * Citus, PGlite), else in one statement reading a jsonb document. `fresh` marks the rows of no
 * stored contact (as locked by the caller).
 */
async function stageRows(db: Queryable, rows: ImportRow[], existing: ReadonlyMap<string, boolean>) {
  await db.query(`CREATE TEMPORARY TABLE ${STAGING_TABLE} (email text NOT NULL, subscribed boolean, data jsonb NOT NULL, fresh boolean NOT NULL) ON COMMIT DROP`);
  if (db.copyFrom) {
    let text = '';
    for (const row of rows) {
      text += `${copyText(row.email)}\t${row.subscribed === null ? '\\N' : row.subscribed ? 't' : 'f'}\t${copyText(JSON.stringify(row.data))}\t${existing.has(row.email) ? 'f' : 't'}\n`;
    }
    await db.copyFrom(STAGING_TABLE, STAGING_COLUMNS, text);
    return;
  }
  await db.query(
    `INSERT INTO ${STAGING_TABLE} (email, subscribed, data, fresh)
     SELECT i.email, i.subscribed, i.data, i.fresh FROM jsonb_to_recordset($1::jsonb) AS i(email text, subscribed boolean, data jsonb, fresh boolean)`,
    [JSON.stringify(rows.map((row) => ({ ...row, fresh: !existing.has(row.email) })))],
  );
}

/**
 * Upserts a batch of contacts by email (emails distinct within the batch) in a fixed number of
 * set-based statements, whatever the batch's size: new contacts get `subscribed` from the file or
 * true; existing ones keep theirs unless the file gives it (which also ends a snooze); data keys
 * merge over the stored ones. `was` is the previous `subscribed` of an existing contact (null for a
 * new one), for the subscription events.
 *
 * The existing contacts are locked first, in email order. The batch is then COPYed into a staging
 * table of the transaction; the existing contacts are updated from it in one statement (the
 * per-row `subscribed` is a column of the staging table there, which ON CONFLICT could not read on
 * Citus; the locked emails, bound, make it probe the email index rather than join every contact
 * of the project, as Citus' worker and PostgreSQL without statistics of the staging table would
 * plan it) and the new ones inserted from it in one, in email order. A contact another writer
 * created between the lock and the insert is not lost: it goes through upsertContactsByEmail,
 * which locks and merges it like any existing one (docs/decisions/contact-fields-bulk-import.md).
 */
export async function upsertContacts(db: Queryable, projectId: string, rows: ImportRow[]): Promise<UpsertedContact[]> {
  const emails = rows.map((row) => row.email).sort();
  const locked = await lockContactsByEmail(db, projectId, emails);
  const was = new Map(locked.map((contact) => [contact.email, contact.subscribed]));
  await stageRows(db, rows, was);
  const upserted: UpsertedContact[] = [];
  if (locked.length) {
    const updated = await db.query<{ id: string; email: string; subscribed: boolean }>(
      `UPDATE contacts AS c SET
         subscribed = coalesce(i.subscribed, c.subscribed),
         snoozed_until = CASE WHEN i.subscribed IS NULL THEN c.snoozed_until END,
         data = c.data || i.data,
         updated_at = now()
       FROM ${STAGING_TABLE} AS i
       WHERE c.project_id = $1 AND c.email = ANY($2::text[]) AND c.email = i.email AND NOT i.fresh
       RETURNING c.id, c.email, c.subscribed`,
      [projectId, locked.map((contact) => contact.email)],
    );
    for (const contact of updated) upserted.push({ id: contact.id, subscribed: contact.subscribed, was: was.get(contact.email) ?? null });
  }
  if (locked.length < rows.length) {
    const inserted = await db.query<{ id: string; email: string; subscribed: boolean }>(
      `INSERT INTO contacts (project_id, email, subscribed, data)
       SELECT $1::uuid, i.email, coalesce(i.subscribed, true), i.data
         FROM ${STAGING_TABLE} AS i
        WHERE i.fresh
        ORDER BY i.email
       ON CONFLICT (project_id, email) DO NOTHING
       RETURNING id, email, subscribed`,
      [projectId],
    );
    for (const contact of inserted) upserted.push({ id: contact.id, subscribed: contact.subscribed, was: null });
    if (inserted.length < rows.length - locked.length) {
      const fresh = rows.filter((row) => !was.has(row.email));
      upserted.push(...(await upsertRaced(db, projectId, fresh, new Set(inserted.map((contact) => contact.email)))));
    }
  }
  return upserted;
}

/**
 * The rows whose contact appeared between the lock and the insert: one upsertContactsByEmail per
 * value of `subscribed` in the file (true, false, not given), each locking and merging.
 */
async function upsertRaced(db: Queryable, projectId: string, fresh: ImportRow[], inserted: Set<string>): Promise<UpsertedContact[]> {
  const raced = fresh.filter((row) => !inserted.has(row.email));
  const upserted: UpsertedContact[] = [];
  for (const subscribed of [true, false, null]) {
    const group = raced.filter((row) => row.subscribed === subscribed);
    if (group.length === 0) continue;
    const written = await upsertContactsByEmail(
      db,
      group.map((row) => ({ projectId, email: row.email, set: row.data })),
      { subscribed, subscribedWhenNew: subscribed ?? true, unset: [] },
      { oneProject: true },
    );
    for (const contact of written) upserted.push({ id: contact.id, subscribed: contact.subscribed, was: contact.was_subscribed });
  }
  return upserted;
}
