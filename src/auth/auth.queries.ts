import type { Queryable } from '../db/index.ts';

export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

export type Membership = { projectId: string; role: Role; disabled: boolean; disabledReason: string | null };

export async function findMembership(db: Queryable, projectId: string, userId: string): Promise<Membership | undefined> {
  const rows = await db.query<Membership>(
    `SELECT p.id AS "projectId", m.role, p.disabled, p.disabled_reason AS "disabledReason"
       FROM project_members m JOIN projects p ON p.id = m.project_id
      WHERE m.project_id = $1 AND m.user_id = $2`,
    [projectId, userId],
  );
  return rows[0];
}

/** The user's current session generation, or undefined when the user does not exist. */
export async function findSessionGeneration(db: Queryable, userId: string): Promise<number | undefined> {
  const rows = await db.query<{ session_generation: number }>('SELECT session_generation FROM users WHERE id = $1', [userId]);
  return rows[0]?.session_generation;
}

export type KeyRow = { id: string; name: string; key: string; disabled: boolean; disabled_reason: string | null };
export type CountedKeyRow = KeyRow & { points: number | null; ms_left: number | null };

// Fixed statements per key type: the column names come from this map, never from input.
const KEY_COLUMNS = {
  public: { hash: 'public_key_hash', key: 'public_key' },
  secret: { hash: 'secret_key_hash', key: 'secret_key' },
} as const;

export async function findProjectByKeyHash(db: Queryable, keyType: 'public' | 'secret', hash: string): Promise<KeyRow | undefined> {
  const columns = KEY_COLUMNS[keyType];
  const rows = await db.query<KeyRow>(`SELECT id, name, ${columns.key} AS key, disabled, disabled_reason FROM projects WHERE ${columns.hash} = $1`, [hash]);
  return rows[0];
}

/**
 * Checks many keys and counts them against their projects' rate limits in one statement (one round
 * trip for a burst of key-authenticated requests on PostgreSQL; src/db/batcher.ts). Only a key that
 * exists, of a project that is not disabled, is counted. The fixed window lives in `rate_limits`
 * (migration 0003): `expire` is the window's end in epoch milliseconds on the database clock, so
 * every process shares one counter and one clock (the conflict branch reads the clock back from
 * EXCLUDED: Citus refuses a subquery there). A project's counter moves once by the number of
 * its requests in the batch, and each request gets its own count in request order: counts stay
 * exact across processes. Returns one row (or undefined for an unknown key) per lookup, in order.
 */
export async function findProjectsByKeyHashesAndCount(db: Queryable, lookups: Array<{ keyType: 'public' | 'secret'; hash: string }>, windowMs: number): Promise<Array<CountedKeyRow | undefined>> {
  const rows = await db.query<CountedKeyRow & { ord: number }>(
    `WITH lookup AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS l(ord int, type text, hash text)
     ), found AS (
       SELECT l.ord, p.id, p.name, p.public_key AS key, p.disabled, p.disabled_reason
       FROM lookup l JOIN projects p ON p.public_key_hash = l.hash WHERE l.type = 'public'
       UNION ALL
       SELECT l.ord, p.id, p.name, p.secret_key AS key, p.disabled, p.disabled_reason
       FROM lookup l JOIN projects p ON p.secret_key_hash = l.hash WHERE l.type = 'secret'
     ), clock AS (
       SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms
     ), requests AS (
       SELECT id, count(*)::int AS n FROM found WHERE NOT disabled GROUP BY id
     ), counted AS (
       INSERT INTO rate_limits AS r (key, points, expire)
       SELECT requests.id::text, requests.n, clock.now_ms + $2 FROM requests, clock ORDER BY 1
       ON CONFLICT (key) DO UPDATE SET
         points = CASE WHEN r.expire <= EXCLUDED.expire - $2 THEN EXCLUDED.points ELSE r.points + EXCLUDED.points END,
         expire = CASE WHEN r.expire <= EXCLUDED.expire - $2 THEN EXCLUDED.expire ELSE r.expire END
       RETURNING r.key, r.points, r.expire
     )
     SELECT f.*,
       c.points - q.n + row_number() OVER (PARTITION BY f.id ORDER BY f.ord) AS points,
       c.expire - (SELECT now_ms FROM clock) AS ms_left
     FROM found f LEFT JOIN requests q ON q.id = f.id LEFT JOIN counted c ON c.key = f.id::text`,
    [JSON.stringify(lookups.map((lookup, ord) => ({ ord, type: lookup.keyType, hash: lookup.hash }))), windowMs],
  );
  const byOrd = new Map(rows.map((row) => [row.ord, row]));
  return lookups.map((_, ord) => byOrd.get(ord));
}
