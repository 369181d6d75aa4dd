import type { Queryable } from '../db/index.ts';

export type RecipientContact = { id: string; email: string; data: Record<string, unknown> };

/** The contacts of a chunk of records, in one query (rendering at delivery). */
export async function contactsByIds(db: Queryable, projectId: string, ids: string[]): Promise<RecipientContact[]> {
  if (ids.length === 0) return [];
  return db.query<RecipientContact>('SELECT id, email, data FROM contacts WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, ids]);
}

/** The content sources of the campaigns of a chunk (rendering at delivery). */
export async function campaignContents(db: Queryable, projectId: string, ids: string[]) {
  return db.query<{ id: string; subject: string; body: string; updated_at: Date | string }>(
    'SELECT id, subject, body, updated_at FROM campaigns WHERE project_id = $1 AND id = ANY($2::uuid[])',
    [projectId, ids],
  );
}
