import { type ContactUpsert, UPSERT_CONTACT_CTES, upsertContactParams } from '../contacts/contacts.queries.ts';
import type { Queryable } from '../db/index.ts';
import { cursorTimestampSql } from './cursor.ts';

export type NewEventRow = { id: string; contactId: string; name: string; data: Record<string, unknown>; emailId: string | null };

/**
 * Inserts events and remembers their names, in one statement. Ids are made by the caller so the
 * order of the returned ids is the order of the input. The names insert uses ON CONFLICT DO
 * NOTHING, which takes no lock on an existing row (hot names cause no contention).
 */
// Names seen in a project (GET /events/names at 10M events); DO NOTHING keeps hot names lock-free.
const RECORD_EVENT_NAMES = (from: string) => `INSERT INTO event_names (project_id, name)
     SELECT DISTINCT $1::uuid, name FROM ${from}
     ON CONFLICT DO NOTHING`;

export async function insertEvents(db: Queryable, projectId: string, events: NewEventRow[]): Promise<void> {
  await db.query(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, "contactId" uuid, name text, data jsonb, "emailId" uuid)
     ), inserted AS (
       INSERT INTO events (project_id, id, contact_id, name, data, email_id)
       SELECT $1, id, "contactId", name, coalesce(data, '{}'::jsonb), "emailId" FROM input
       RETURNING name
     )
     ${RECORD_EVENT_NAMES('inserted')}`,
    [projectId, JSON.stringify(events)],
  );
}

export type TrackedRow = { contact_id: string; subscription_event_id: string | null };

/**
 * POST /v1/track as one statement, so it needs no BEGIN/COMMIT round trips: upsert the contact
 * (UPSERT_CONTACT_CTES, $1–$6), store the event ($7 id, $8 name, $9 data) and, when `subscribed`
 * changed on an existing contact, its contact.subscribed/unsubscribed event ($10 id).
 */
export async function upsertContactAndTrack(
  db: Queryable,
  projectId: string,
  contact: ContactUpsert,
  event: { id: string; name: string; data: Record<string, unknown>; subscriptionEventId: string },
): Promise<TrackedRow> {
  const rows = await db.query<TrackedRow>(
    `WITH ${UPSERT_CONTACT_CTES}, changed AS (
       SELECT id, subscribed FROM written WHERE NOT is_new AND was_subscribed IS DISTINCT FROM subscribed
     ), inserted AS (
       INSERT INTO events (project_id, id, contact_id, name, data)
       SELECT $1, $7::uuid, id, $8, $9::jsonb FROM written
       UNION ALL
       SELECT $1, $10::uuid, id, CASE WHEN subscribed THEN 'contact.subscribed' ELSE 'contact.unsubscribed' END, '{}'::jsonb FROM changed
       RETURNING name
     ), names AS (
       ${RECORD_EVENT_NAMES('inserted')}
     )
     SELECT w.id AS contact_id, CASE WHEN EXISTS (SELECT 1 FROM changed) THEN $10::uuid END AS subscription_event_id FROM written w`,
    [...upsertContactParams(projectId, contact), event.id, event.name, JSON.stringify(event.data), event.subscriptionEventId],
  );
  return rows[0]!;
}

export type EventRow = {
  id: string;
  name: string;
  contact_id: string;
  email: string;
  email_id: string | null;
  data: Record<string, unknown>;
  created_at: Date | string;
  sort_key: string;
};

export type EventListQuery = { name?: string; contactId?: string; before?: { value: string; id: string }; limit: number };

/** Newest first, keyset over (created_at, id): events_project_{created,name,contact}_idx serve each filter. */
export async function listEvents(db: Queryable, projectId: string, query: EventListQuery): Promise<EventRow[]> {
  const { where, params } = eventFilters(projectId, query);
  if (query.before) {
    params.push(query.before.value, query.before.id);
    where.push(`(e.created_at, e.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(query.limit);
  return db.query<EventRow>(
    `SELECT e.id, e.name, e.contact_id, c.email, e.email_id, e.data, e.created_at, ${cursorTimestampSql('e.created_at')} AS sort_key
     FROM events e JOIN contacts c ON c.project_id = e.project_id AND c.id = e.contact_id
     WHERE ${where.join(' AND ')}
     ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`,
    params,
  );
}

export async function countEvents(db: Queryable, projectId: string, query: Pick<EventListQuery, 'name' | 'contactId'>): Promise<number> {
  const { where, params } = eventFilters(projectId, query);
  const rows = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM events e WHERE ${where.join(' AND ')}`, params);
  return rows[0]!.total;
}

function eventFilters(projectId: string, query: Pick<EventListQuery, 'name' | 'contactId'>) {
  const where = ['e.project_id = $1'];
  const params: unknown[] = [projectId];
  if (query.name !== undefined) {
    params.push(query.name);
    where.push(`e.name = $${params.length}`);
  }
  if (query.contactId !== undefined) {
    params.push(query.contactId);
    where.push(`e.contact_id = $${params.length}::uuid`);
  }
  return { where, params };
}

/** GET /events/stats: one pass over the window, grouped by UTC day and name. */
export async function countEventsByDayAndName(
  db: Queryable,
  projectId: string,
  window: { from: string; to: string; name?: string },
): Promise<{ day: string; name: string; count: number }[]> {
  const params: unknown[] = [projectId, window.from, window.to];
  let byName = '';
  if (window.name !== undefined) {
    params.push(window.name);
    byName = `AND name = $${params.length}`;
  }
  return db.query(
    `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, name, count(*)::int AS count
     FROM events
     WHERE project_id = $1 AND created_at >= $2::timestamptz AND created_at < $3::timestamptz ${byName}
     GROUP BY 1, 2`,
    params,
  );
}

/** Names with at least one stored event (the catalogue can outlive events removed with their contact). */
export async function listEventNames(db: Queryable, projectId: string): Promise<{ name: string; first_seen_at: Date | string }[]> {
  return db.query(
    `SELECT n.name, n.first_seen_at FROM event_names n
     WHERE n.project_id = $1 AND EXISTS (SELECT 1 FROM events e WHERE e.project_id = n.project_id AND e.name = n.name)
     ORDER BY n.name`,
    [projectId],
  );
}

export async function deleteEventsNamed(db: Queryable, projectId: string, name: string): Promise<number> {
  const rows = await db.query<{ deleted: number }>(
    `WITH gone AS (DELETE FROM events WHERE project_id = $1 AND name = $2 RETURNING 1),
          forgotten AS (DELETE FROM event_names WHERE project_id = $1 AND name = $2)
     SELECT count(*)::int AS deleted FROM gone`,
    [projectId, name],
  );
  return rows[0]!.deleted;
}

export async function contactExists(db: Queryable, projectId: string, contactId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM contacts WHERE project_id = $1 AND id = $2', [projectId, contactId]);
  return rows.length > 0;
}
