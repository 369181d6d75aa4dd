import type { Queryable } from '../db/index.ts';

export type NewEventRow = { id: string; contactId: string; name: string; data: Record<string, unknown>; emailId: string | null };

/**
 * Inserts events and remembers their names, in one statement. Ids are made by the caller so the
 * order of the returned ids is the order of the input. The names insert uses ON CONFLICT DO
 * NOTHING, which takes no lock on an existing row (hot names cause no contention).
 */
export async function insertEvents(db: Queryable, projectId: string, events: NewEventRow[]): Promise<void> {
  await db.query(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, "contactId" uuid, name text, data jsonb, "emailId" uuid)
     ), inserted AS (
       INSERT INTO events (project_id, id, contact_id, name, data, email_id)
       SELECT $1, id, "contactId", name, coalesce(data, '{}'::jsonb), "emailId" FROM input
       RETURNING name
     )
     INSERT INTO event_names (project_id, name)
     SELECT DISTINCT $1::uuid, name FROM inserted
     ON CONFLICT DO NOTHING`,
    [projectId, JSON.stringify(events)],
  );
}
