import type { Queryable } from '../db/index.ts';

export type IdempotencyRecord = { method: string; path: string; statusCode: number | null; createdAt: Date };

/**
 * Claims `key` for this request: inserts it, or takes over a row whose TTL has passed. One
 * statement, so of concurrent requests with one key exactly one gets `true` (docs/decisions/idempotency-and-rate-limits.md). The
 * time is the proposed row's created_at (its default, the transaction time): Citus refuses now() in
 * DO UPDATE.
 */
export async function claimIdempotencyKey(db: Queryable, claim: { projectId: string; key: string; method: string; path: string; ttlHours: number }): Promise<boolean> {
  const rows = await db.query(
    `INSERT INTO idempotency_keys (project_id, key, method, path, expires_at)
     VALUES ($1, $2, $3, $4, now() + make_interval(hours => $5::int))
     ON CONFLICT (project_id, key) DO UPDATE
       SET method = EXCLUDED.method, path = EXCLUDED.path, status_code = NULL,
           created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
       WHERE idempotency_keys.expires_at < EXCLUDED.created_at
     RETURNING 1`,
    [claim.projectId, claim.key, claim.method, claim.path, claim.ttlHours],
  );
  return rows.length > 0;
}

/** The live record holding `key`, for the 409 that refuses a reuse. */
export async function findIdempotencyKey(db: Queryable, projectId: string, key: string): Promise<IdempotencyRecord | undefined> {
  const rows = await db.query<IdempotencyRecord>(
    `SELECT method, path, status_code AS "statusCode", created_at AS "createdAt"
       FROM idempotency_keys
      WHERE project_id = $1 AND key = $2 AND expires_at >= now()`,
    [projectId, key],
  );
  return rows[0];
}

/** A 4xx answer frees the key so the client may correct the request and retry. */
export async function releaseIdempotencyKey(db: Queryable, projectId: string, key: string): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE project_id = $1 AND key = $2', [projectId, key]);
}

/** A 2xx or 5xx answer keeps the key for its TTL, remembering the status it got. */
export async function recordIdempotencyStatus(db: Queryable, projectId: string, key: string, statusCode: number): Promise<void> {
  await db.query('UPDATE idempotency_keys SET status_code = $3 WHERE project_id = $1 AND key = $2', [projectId, key, statusCode]);
}

/** Removes up to `limit` keys past their TTL (the periodic platform cleanup); returns how many went. */
export async function deleteExpiredIdempotencyKeys(db: Queryable, limit: number): Promise<number> {
  const rows = await db.query<{ deleted: number }>(
    `WITH expired AS (
       SELECT project_id, key FROM idempotency_keys WHERE expires_at < now() LIMIT $1
     ), deleted AS (
       DELETE FROM idempotency_keys k USING expired e
        WHERE k.project_id = e.project_id AND k.key = e.key AND k.expires_at < now()
       RETURNING 1
     )
     SELECT count(*)::int AS deleted FROM deleted`,
    [limit],
  );
  return rows[0]?.deleted ?? 0;
}
