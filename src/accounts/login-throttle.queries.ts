import type { Queryable } from '../db/index.ts';

/** Failures older than this are forgotten: the count starts again. */
export const FORGET_AFTER_SECONDS = 3600;

export type FailureRow = { key: string; failures: number; secondsSince: number };

/** The live failure counts of `keys` with the seconds since each one's last failure. */
export async function findFailures(db: Queryable, keys: string[]): Promise<FailureRow[]> {
  return db.query<FailureRow>(
    `SELECT key, failures, EXTRACT(EPOCH FROM now() - last_failed_at)::float8 AS "secondsSince"
       FROM login_failures
      WHERE key = ANY($1::text[]) AND last_failed_at > now() - make_interval(secs => $2)`,
    [keys, FORGET_AFTER_SECONDS],
  );
}

/**
 * Counts one failure on each key (a count older than FORGET_AFTER_SECONDS starts again at 1). The
 * time is read back from EXCLUDED (the transaction time): Citus refuses now() in DO UPDATE SET. The
 * period is written into the statement (a constant of this file): on Citus a parameter in DO UPDATE
 * SET of a coordinator table is not passed on ("there is no parameter $2").
 */
export async function recordFailure(db: Queryable, keys: string[]): Promise<void> {
  await db.query(
    `INSERT INTO login_failures AS f (key, failures, last_failed_at)
     SELECT key, 1, now() FROM unnest($1::text[]) AS key
     ON CONFLICT (key) DO UPDATE
        SET failures = CASE WHEN EXCLUDED.last_failed_at - f.last_failed_at < make_interval(secs => ${FORGET_AFTER_SECONDS}) THEN f.failures + 1 ELSE 1 END,
            last_failed_at = EXCLUDED.last_failed_at`,
    [keys],
  );
}

export async function clearFailures(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM login_failures WHERE key = $1', [key]);
}

/** Removes forgotten rows, so the table holds about the last hour's failures. */
export async function purgeFailures(db: Queryable): Promise<void> {
  await db.query('DELETE FROM login_failures WHERE last_failed_at <= now() - make_interval(secs => $1)', [FORGET_AFTER_SECONDS]);
}
