import type { Queryable } from '../db/index.ts';

export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

/** The roles that manage a project: its settings, keys, members and audit log. */
export const MANAGERS: readonly Role[] = ['OWNER', 'ADMIN'];

export type Membership = { projectId: string; role: Role; disabled: boolean; disabledReason: string | null; requireTwoFactor: boolean };

export async function findMembership(db: Queryable, projectId: string, userId: string): Promise<Membership | undefined> {
  const rows = await db.query<Membership>(
    `SELECT p.id AS "projectId", m.role, p.disabled, p.disabled_reason AS "disabledReason", p.require_two_factor AS "requireTwoFactor"
       FROM project_members m JOIN projects p ON p.id = m.project_id
      WHERE m.project_id = $1 AND m.user_id = $2`,
    [projectId, userId],
  );
  return rows[0];
}

/** A session record that still lives (not ended, not expired): when it was last seen. */
export async function findLiveSession(db: Queryable, sessionId: string, userId: string): Promise<{ lastSeenAt: Date } | undefined> {
  const rows = await db.query<{ lastSeenAt: Date }>(
    `SELECT last_seen_at AS "lastSeenAt" FROM user_sessions WHERE id = $1 AND user_id = $2 AND ended_at IS NULL AND expires_at > now()`,
    [sessionId, userId],
  );
  return rows[0];
}

/** Records that a session was seen now, from `ip`; skipped when it was seen within the last minute. */
export async function touchSession(db: Queryable, sessionId: string, ip: string): Promise<void> {
  await db.query(`UPDATE user_sessions SET last_seen_at = now(), ip = $2 WHERE id = $1 AND last_seen_at < now() - interval '1 minute'`, [sessionId, ip]);
}

export type KeyScope = 'full' | 'sending';

/** A key's project, and for a named key (api_keys) the key's id, scope and sender domains. */
export type KeyRow = {
  id: string;
  name: string;
  disabled: boolean;
  disabled_reason: string | null;
  key_id: string | null;
  scope: KeyScope;
  sender_domains: string[];
};
export type CountedKeyRow = KeyRow & { points: number | null; ms_left: number | null };

/** How a key is looked up: the project's own keys by hash; a named key by its project and hash. */
export type KeyLookup = { keyType: 'public' | 'secret'; hash: string; projectId?: string };

// Fixed statements per key type: the column names come from this map, never from input.
const KEY_COLUMNS = { public: 'public_key_hash', secret: 'secret_key_hash' } as const;

export async function findProjectByKeyHash(db: Queryable, lookup: KeyLookup): Promise<KeyRow | undefined> {
  if (lookup.projectId) {
    const rows = await db.query<KeyRow>(
      `SELECT p.id, p.name, p.disabled, p.disabled_reason, k.id AS key_id, k.scope, k.sender_domains
         FROM api_keys k JOIN projects p ON p.id = k.project_id
        WHERE k.project_id = $1 AND k.key_hash = $2 AND k.revoked_at IS NULL`,
      [lookup.projectId, lookup.hash],
    );
    return rows[0];
  }
  const rows = await db.query<KeyRow>(
    `SELECT id, name, disabled, disabled_reason, NULL::uuid AS key_id, 'full' AS scope, '{}'::text[] AS sender_domains
       FROM projects WHERE ${KEY_COLUMNS[lookup.keyType]} = $1`,
    [lookup.hash],
  );
  return rows[0];
}

/**
 * Checks many keys and counts them against their projects' rate limits in one statement (one round
 * trip for a burst of key-authenticated requests on PostgreSQL; src/db/batcher.ts). Only a key that
 * exists (a named key: not revoked), of a project that is not disabled, is counted. The fixed window lives in `rate_limits`
 * (migration 0003): `expire` is the window's end in epoch milliseconds on the database clock, so
 * every process shares one counter and one clock (the conflict branch reads the clock back from
 * EXCLUDED: Citus refuses a subquery there). A project's counter moves once by the number of
 * its requests in the batch, and each request gets its own count in request order: counts stay
 * exact across processes. Returns one row (or undefined for an unknown key) per lookup, in order.
 */
export async function findProjectsByKeyHashesAndCount(db: Queryable, lookups: KeyLookup[], windowMs: number): Promise<Array<CountedKeyRow | undefined>> {
  const rows = await db.query<CountedKeyRow & { ord: number }>(
    `WITH lookup AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS l(ord int, type text, hash text, project uuid)
     ), found AS (
       SELECT l.ord, p.id, p.name, p.disabled, p.disabled_reason, NULL::uuid AS key_id, 'full' AS scope, '{}'::text[] AS sender_domains
       FROM lookup l JOIN projects p ON p.public_key_hash = l.hash WHERE l.type = 'public'
       UNION ALL
       SELECT l.ord, p.id, p.name, p.disabled, p.disabled_reason, NULL::uuid, 'full', '{}'::text[]
       FROM lookup l JOIN projects p ON p.secret_key_hash = l.hash WHERE l.type = 'secret' AND l.project IS NULL
       UNION ALL
       SELECT l.ord, p.id, p.name, p.disabled, p.disabled_reason, k.id, k.scope, k.sender_domains
       FROM lookup l JOIN api_keys k ON k.project_id = l.project AND k.key_hash = l.hash AND k.revoked_at IS NULL
       JOIN projects p ON p.id = k.project_id WHERE l.type = 'secret'
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
    [JSON.stringify(lookups.map((lookup, ord) => ({ ord, type: lookup.keyType, hash: lookup.hash, project: lookup.projectId ?? null }))), windowMs],
  );
  const byOrd = new Map(rows.map((row) => [row.ord, row]));
  return lookups.map((_, ord) => byOrd.get(ord));
}

/** Notes that a named key was used (the caller throttles: at most once a minute per key and process). */
export async function touchApiKey(db: Queryable, projectId: string, keyId: string): Promise<void> {
  await db.query(`UPDATE api_keys SET last_used_at = now() WHERE project_id = $1 AND id = $2`, [projectId, keyId]);
}

/** Whether the user has two-factor sign-in on (docs/security.md). */
export async function hasTwoFactor(db: Queryable, userId: string): Promise<boolean> {
  const rows = await db.query<{ on: boolean }>('SELECT totp_enabled_at IS NOT NULL AS on FROM users WHERE id = $1', [userId]);
  return rows[0]?.on === true;
}
