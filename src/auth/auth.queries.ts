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

export async function userExists(db: Queryable, userId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM users WHERE id = $1', [userId]);
  return rows.length > 0;
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
 * Finds the project of a key and counts the request against its rate limit in one statement (one
 * round trip per key-authenticated request on PostgreSQL). Only a key that exists, of a project
 * that is not disabled, is counted. The fixed window lives in `rate_limits` (migration 0003):
 * `expire` is the window's end in epoch milliseconds on the database clock, so every process
 * shares one counter and one clock.
 */
export async function findProjectByKeyHashAndCount(db: Queryable, keyType: 'public' | 'secret', hash: string, windowMs: number): Promise<CountedKeyRow | undefined> {
  const columns = KEY_COLUMNS[keyType];
  const rows = await db.query<CountedKeyRow>(
    `WITH project AS (
       SELECT id, name, ${columns.key} AS key, disabled, disabled_reason FROM projects WHERE ${columns.hash} = $1
     ), clock AS (
       SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms
     ), counted AS (
       INSERT INTO rate_limits AS r (key, points, expire)
       SELECT project.id::text, 1, clock.now_ms + $2 FROM project, clock WHERE NOT project.disabled
       ON CONFLICT (key) DO UPDATE SET
         points = CASE WHEN r.expire <= (SELECT now_ms FROM clock) THEN 1 ELSE r.points + 1 END,
         expire = CASE WHEN r.expire <= (SELECT now_ms FROM clock) THEN EXCLUDED.expire ELSE r.expire END
       RETURNING r.points, r.expire
     )
     SELECT p.*, c.points, c.expire - (SELECT now_ms FROM clock) AS ms_left FROM project p LEFT JOIN counted c ON true`,
    [hash, windowMs],
  );
  return rows[0];
}
