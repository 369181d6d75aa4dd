import type { Queryable } from '../db/index.ts';

/** Namespace of the instances' advisory locks (ASCII "mail"), so they meet no other lock. */
const LOCK_NAMESPACE = 1835100524;

/** Takes the session lock a live instance holds for as long as its connection lives (PostgreSQL). */
export async function lockInstance(session: { query: (text: string, values: unknown[]) => Promise<unknown> }, id: number): Promise<void> {
  await session.query(`SELECT pg_advisory_lock($1, $2)`, [LOCK_NAMESPACE, id]);
}

export async function registerInstance(db: Queryable, id: number): Promise<void> {
  await db.query(`INSERT INTO worker_instances (id) VALUES ($1) ON CONFLICT (id) DO UPDATE SET started_at = EXCLUDED.started_at`, [id]);
}

export async function forgetInstances(db: Queryable, ids: number[]): Promise<void> {
  if (ids.length) await db.query(`DELETE FROM worker_instances WHERE id = ANY($1::int[])`, [ids]);
}

/**
 * The other registered instances whose lock is free: their process is gone (its connection closed,
 * so PostgreSQL released the lock). The probe takes each free lock and gives it back in the same
 * statement and session. An instance inserts its row only once it holds its lock, so a starting
 * instance is never taken for dead.
 */
export async function deadInstancesPostgres(db: Queryable, me: number): Promise<number[]> {
  const rows = await db.query<{ id: number }>(
    `SELECT id FROM worker_instances
     WHERE id <> $2 AND CASE WHEN pg_try_advisory_lock($1, id) THEN pg_advisory_unlock($1, id) ELSE false END`,
    [LOCK_NAMESPACE, me],
  );
  return rows.map((row) => row.id);
}

/** Embedded database: one process opens it at a time, so every other instance is gone. */
export async function otherInstances(db: Queryable, me: number): Promise<number[]> {
  const rows = await db.query<{ id: number }>(`SELECT id FROM worker_instances WHERE id <> $1`, [me]);
  return rows.map((row) => row.id);
}
