import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { runRollup } from './rollup.service.ts';

export const ROLLUP_JOB = 'analytics.rollup';
/** Seconds between runs: how far dashboards and the reputation check trail the events. */
export const ROLLUP_INTERVAL_SECONDS = 3;
const SINGLETON = { singletonKey: ROLLUP_JOB };
const WATCHDOG_CRON = '* * * * *';
/** A run hands the worker back after this long; a backfill goes on in the next run. */
const RUN_BUDGET_MS = 20_000;

/**
 * The rollup chain (like domains.check): each run queues the next one ROLLUP_INTERVAL_SECONDS
 * ahead, then counts what arrived. The `stately` policy keeps one queued and one active job across
 * every process; the watermark lock makes a second concurrent run harmless anyway.
 */
export function analyticsJobs(deps: Deps): JobDefinition[] {
  return [
    {
      name: ROLLUP_JOB,
      queue: { policy: 'stately', notify: false, retryLimit: 0, expireInSeconds: 15 * 60 },
      work: { batchSize: 1, pollingIntervalSeconds: 1 },
      async handle() {
        // Queued first, so a run that fails does not break the chain.
        await deps.queue.send(ROLLUP_JOB, {}, { ...SINGLETON, startAfter: ROLLUP_INTERVAL_SECONDS });
        await runRollup(deps.db, RUN_BUDGET_MS);
      },
    },
  ];
}

/** At start-up: starts the chain, and a once-a-minute kick-off restarts it if it ever breaks. */
export async function startRollups(deps: Deps): Promise<void> {
  await deps.queue.send(ROLLUP_JOB, {}, SINGLETON);
  await deps.queue.schedule(ROLLUP_JOB, WATCHDOG_CRON, SINGLETON);
}
