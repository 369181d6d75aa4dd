import { type Queryable, queryOne } from '../db/index.ts';

export type UploadRow = { id: string; ext: string; content_type: string; size: number; created_at: Date | string };

export function insertUpload(db: Queryable, projectId: string, upload: { ext: string; contentType: string; content: Buffer }) {
  return queryOne<UploadRow>(
    db,
    `INSERT INTO uploads (project_id, ext, content_type, size, content) VALUES ($1, $2, $3, $4, $5)
     RETURNING id, ext, content_type, size, created_at`,
    [projectId, upload.ext, upload.contentType, upload.content.length, upload.content],
  );
}

/**
 * The bytes behind a public upload URL. Looked up by id alone: the URL names no project (it is
 * pasted into email bodies), and the id is an unguessable UUID.
 */
export async function findUploadContent(db: Queryable, id: string, ext: string) {
  const row = await queryOne<{ content_type: string; content: Uint8Array }>(db, `SELECT content_type, content FROM uploads WHERE id = $1 AND ext = $2`, [id, ext]);
  // pg gives a Buffer, PGlite a Uint8Array.
  return row && { contentType: row.content_type, content: Buffer.from(row.content.buffer, row.content.byteOffset, row.content.byteLength) };
}
