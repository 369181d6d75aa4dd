import { type Queryable, queryOne } from '../db/index.ts';
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

/**
 * Upserts a batch of contacts by email (emails distinct within the batch): new contacts get
 * `subscribed` from the file or true; existing ones keep theirs unless the file gives it (which
 * also ends a snooze); data keys merge over the stored ones. `was` is the previous `subscribed` of
 * an existing contact (null for a new one), for the subscription events. The batch's existing
 * contacts are locked first, in one statement and in email order (as one upsert of them all
 * would); then one upsertContactsByEmail per value of `subscribed` in the file (true, false, not
 * given), since ON CONFLICT cannot read a per-row value that is not a column (a subquery there
 * fails on Citus).
 */
export async function upsertContacts(db: Queryable, projectId: string, rows: ImportRow[]): Promise<UpsertedContact[]> {
  await lockContactsByEmail(db, projectId, rows.map((row) => row.email));
  const upserted: UpsertedContact[] = [];
  for (const subscribed of [true, false, null]) {
    const group = rows.filter((row) => row.subscribed === subscribed);
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
