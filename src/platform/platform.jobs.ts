import type { Deps } from '../deps.ts';
import { deleteExpiredIdempotencyKeys } from '../http/idempotency.queries.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { deleteStaleRequestCounters } from './platform.queries.ts';

export const CLEANUP_JOB = 'platform.cleanup';
// Hourly, off the top of the hour where other schedules bunch up.
export const CLEANUP_CRON = '17 * * * *';
// Bounded deletes keep each statement short (PGlite runs on the event loop).
const BATCH = 5000;

/**
 * Housekeeping for the platform's own tables. Expired Idempotency-Keys are already reclaimed when
 * reused (idempotency.queries.ts); this removes the ones nobody reuses, and the rate-limit
 * counters of projects that sent nothing for an hour (or no longer exist).
 */
export function platformJobs(deps: Deps): JobDefinition[] {
  return [
    {
      name: CLEANUP_JOB,
      queue: { retryLimit: 2, expireInSeconds: 10 * 60 },
      work: { batchSize: 1 },
      async handle() {
        let total = 0;
        let deleted: number;
        do {
          deleted = await deleteExpiredIdempotencyKeys(deps.db, BATCH);
          total += deleted;
        } while (deleted === BATCH);
        if (total) deps.log.info({ deleted: total }, 'expired idempotency keys removed');
        await deleteStaleRequestCounters(deps.db);
      },
    },
  ];
}

/**
 * At start-up: the hourly cleanup's schedule. It lives in the database, so any process writing it
 * serves every worker (the platform has no endpoints of its own: rate limiting and Idempotency-Key
 * are hooks in src/http/).
 */
export async function startPlatformJobs(deps: Deps): Promise<void> {
  await deps.queue.schedule(CLEANUP_JOB, CLEANUP_CRON);
}
