import { type Queryable, queryOne } from '../db/index.ts';
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
 * Upserts a batch of contacts by email in one statement (emails distinct within the batch):
 * new contacts get `subscribed` from the file or true; existing ones keep theirs unless the file
 * gives it (which also ends a snooze); data keys merge over the stored ones. `was` is the previous
 * `subscribed` of an existing contact (null for a new one), for the subscription events.
 */
export function upsertContacts(db: Queryable, projectId: string, rows: ImportRow[]) {
  return db.query<UpsertedContact>(
    `WITH input AS (
       SELECT r->>'email' AS email, (r->>'subscribed')::boolean AS subscribed, r->'data' AS data
         FROM jsonb_array_elements($2::jsonb) AS r
     ),
     existing AS (
       SELECT c.id, c.subscribed FROM contacts c JOIN input i ON c.email = i.email
        WHERE c.project_id = $1
          FOR UPDATE OF c
     ),
     upserted AS (
       INSERT INTO contacts AS c (project_id, email, subscribed, data)
       SELECT $1, i.email, coalesce(i.subscribed, true), i.data FROM input i
       ON CONFLICT (project_id, email) DO UPDATE
          SET subscribed = coalesce((SELECT i.subscribed FROM input i WHERE i.email = EXCLUDED.email), c.subscribed),
              snoozed_until = CASE WHEN (SELECT i.subscribed FROM input i WHERE i.email = EXCLUDED.email) IS NULL THEN c.snoozed_until END,
              data = c.data || EXCLUDED.data,
              updated_at = now()
       RETURNING c.id, c.subscribed
     )
     SELECT u.id, u.subscribed, e.subscribed AS was FROM upserted u LEFT JOIN existing e ON e.id = u.id`,
    [projectId, JSON.stringify(rows)],
  );
}
