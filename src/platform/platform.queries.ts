import type { Queryable } from '../db/index.ts';

/** Rate-limit windows (migration 0003) that ended over an hour ago: one row per project, at most. */
export async function deleteStaleRequestCounters(db: Queryable): Promise<void> {
  await db.query(`DELETE FROM rate_limits WHERE expire < (extract(epoch FROM clock_timestamp()) * 1000)::bigint - 3600000`);
}
