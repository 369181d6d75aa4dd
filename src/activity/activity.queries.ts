import type { Queryable } from '../db/index.ts';
import { prefixPattern } from '../db/like.ts';
import { cursorTimestampSql } from '../pagination.ts';

/** A type filter: one event name, or every name of a family (`email.*`). */
export type TypeFilter = { exact: string } | { prefix: string };

export type ActivityRow = {
  id: string;
  name: string;
  contact_id: string;
  email: string;
  data: Record<string, unknown>;
  created_at: Date;
  sort_key: string;
  /** The stream of the email record an email.* event is about (docs/streams.md); null for other events. */
  stream: 'transactional' | 'marketing' | null;
};

// LIKE's own wildcards in a family name are matched literally.

function filters(projectId: string, query: { type?: TypeFilter; contactId?: string }) {
  const where = ['e.project_id = $1'];
  const params: unknown[] = [projectId];
  if (query.type && 'exact' in query.type) {
    params.push(query.type.exact);
    where.push(`e.name = $${params.length}`);
  } else if (query.type) {
    params.push(prefixPattern(query.type.prefix));
    where.push(`e.name LIKE $${params.length}`);
  }
  if (query.contactId) {
    params.push(query.contactId);
    where.push(`e.contact_id = $${params.length}::uuid`);
  }
  return { where, params };
}

/** The feed, newest first, keyset over (created_at, id): the events indexes serve each filter. */
export async function listActivity(
  db: Queryable,
  projectId: string,
  query: { type?: TypeFilter; contactId?: string; before?: { value: string; id: string }; limit: number },
): Promise<ActivityRow[]> {
  const { where, params } = filters(projectId, query);
  if (query.before) {
    params.push(query.before.value, query.before.id);
    where.push(`(e.created_at, e.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(query.limit);
  return db.query<ActivityRow>(
    `SELECT e.id, e.name, e.contact_id, c.email, e.data, e.created_at, ${cursorTimestampSql('e.created_at')} AS sort_key, m.stream
     FROM events e JOIN contacts c ON c.project_id = e.project_id AND c.id = e.contact_id
     LEFT JOIN emails m ON m.project_id = e.project_id AND m.id = e.email_id
     WHERE ${where.join(' AND ')}
     ORDER BY e.created_at DESC, e.id DESC LIMIT $${params.length}`,
    params,
  );
}

/** Exact count of one contact's activity (an index range of that contact's events). */
export async function countContactActivity(db: Queryable, projectId: string, contactId: string, type?: TypeFilter): Promise<number> {
  const { where, params } = filters(projectId, { type, contactId });
  const rows = await db.query<{ total: number }>(`SELECT count(*)::bigint AS total FROM events e WHERE ${where.join(' AND ')}`, params);
  return rows[0]!.total;
}

/**
 * The project's events per the all-time rollup (event_totals), for the first page's `total` without
 * counting millions of rows: as of the last rollup run, names deleted since left out.
 */
export async function countActivityFromRollup(db: Queryable, projectId: string, type?: TypeFilter): Promise<number> {
  const params: unknown[] = [projectId];
  let filter = '';
  if (type && 'exact' in type) {
    params.push(type.exact);
    filter = `AND t.name = $2`;
  } else if (type) {
    params.push(prefixPattern(type.prefix));
    filter = `AND t.name LIKE $2`;
  }
  const rows = await db.query<{ total: number }>(
    `SELECT coalesce(sum(t.count), 0)::bigint AS total FROM event_totals t
     WHERE t.project_id = $1 ${filter}
       AND EXISTS (SELECT 1 FROM event_names n WHERE n.project_id = t.project_id AND n.name = t.name)`,
    params,
  );
  return rows[0]!.total;
}

/**
 * Events since `since`, counted up to `cap` + 1 rows at most, so a poll costs a bounded index range
 * however far back `since` is.
 */
export async function countRecent(db: Queryable, projectId: string, since: Date, cap: number, type?: TypeFilter): Promise<number> {
  const { where, params } = filters(projectId, { type });
  params.push(since.toISOString(), cap + 1);
  const rows = await db.query<{ count: number }>(
    `SELECT count(*)::bigint AS count FROM (
       SELECT 1 FROM events e WHERE ${where.join(' AND ')} AND e.created_at > $${params.length - 1}::timestamptz LIMIT $${params.length}
     ) recent`,
    params,
  );
  return rows[0]!.count;
}

/** Every event name the project has recorded (the catalogue kept by recordEvents). */
export async function listTypes(db: Queryable, projectId: string): Promise<Array<{ name: string; first_seen_at: Date }>> {
  return db.query(
    `SELECT n.name, n.first_seen_at FROM event_names n
     WHERE n.project_id = $1 AND EXISTS (SELECT 1 FROM events e WHERE e.project_id = n.project_id AND e.name = n.name)
     ORDER BY n.name`,
    [projectId],
  );
}
