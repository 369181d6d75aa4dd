import type { Queryable } from '../db/index.ts';
import { cursorTimestampSql } from '../pagination.ts';

export type NewEventRow = { id: string; contactId: string; name: string; data: Record<string, unknown>; emailId: string | null };

// Rows per statement: 5 parameters each, well under PostgreSQL's 65,535.
const EVENTS_PER_INSERT = 1_000;

/**
 * Stores events of one project, in the caller's transaction, and records their names (GET
 * /events/names at 10M events; DO NOTHING keeps hot names lock-free). Rows as `VALUES` with the
 * project written in: Citus runs both statements on the project's node alone.
 */
export async function insertEvents(tx: Queryable, projectId: string, events: NewEventRow[]): Promise<void> {
  if (events.length === 0) return;
  for (let start = 0; start < events.length; start += EVENTS_PER_INSERT) {
    const params: unknown[] = [projectId];
    const rows = events.slice(start, start + EVENTS_PER_INSERT).map((event) => {
      params.push(event.id, event.contactId, event.name, JSON.stringify(event.data ?? {}), event.emailId);
      const n = params.length;
      return `($1, $${n - 4}::uuid, $${n - 3}::uuid, $${n - 2}, $${n - 1}::jsonb, $${n}::uuid)`;
    });
    await tx.query(`INSERT INTO events (project_id, id, contact_id, name, data, email_id) VALUES ${rows.join(', ')}`, params);
  }
  // Sorted, so two transactions adding the same new names insert them in one order.
  const names = [...new Set(events.map((event) => event.name))].sort();
  await tx.query(`INSERT INTO event_names (project_id, name) VALUES ${names.map((_, i) => `($1, $${i + 2})`).join(', ')} ON CONFLICT DO NOTHING`, [projectId, ...names]);
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

/** Queues events for their subscribers (the worker's events.dispatch drains the table). */
export async function insertDispatch(db: Queryable, projectId: string, eventIds: string[]): Promise<void> {
  await db.query('INSERT INTO event_dispatch (project_id, event_ids) VALUES ($1, $2::uuid[])', [projectId, eventIds]);
}

export type DispatchRow = { id: number; project_id: string; event_ids: string[] };

/**
 * Claims the oldest waiting rows for `leaseSeconds` (SKIP LOCKED: workers take disjoint rows). A
 * row stays until deleteDispatched, so a worker that dies mid-way leaves it to a later drain.
 */
export async function claimDispatch(db: Queryable, limit: number, leaseSeconds: number): Promise<DispatchRow[]> {
  return db.query<DispatchRow>(
    `UPDATE event_dispatch SET locked_until = now() + make_interval(secs => $2)
     WHERE id IN (
       SELECT id FROM event_dispatch WHERE locked_until < now() ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
     )
     RETURNING id, project_id, event_ids`,
    [limit, leaseSeconds],
  );
}

export async function deleteDispatched(db: Queryable, ids: number[]): Promise<void> {
  if (ids.length) await db.query('DELETE FROM event_dispatch WHERE id = ANY($1::bigint[])', [ids]);
}
