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
 * The rollup chain: each run queues the next one ROLLUP_INTERVAL_SECONDS ahead, then counts what
 * arrived. The `short` policy keeps at most one run queued across every process (the watchdog's
 * kick-offs are refused while one is). Two runs may overlap in two processes; the watermark lock
 * makes them take turns. Not `stately`: pg-boss skips a stately key it last saw active in its queue
 * cache (refreshed every 60 s), which stalled back-to-back runs for a minute or two.
 */
export function analyticsJobs(deps: Deps): JobDefinition[] {
  const subscribers = deps.registry.rollups.map((subscribe) => subscribe(deps));
  return [
    {
      name: ROLLUP_JOB,
      queue: { policy: 'short', notify: false, retryLimit: 0, expireInSeconds: 15 * 60 },
      work: { batchSize: 1, pollingIntervalSeconds: 1 },
      async handle() {
        // Queued first, so a run that fails does not break the chain.
        await deps.queue.send(ROLLUP_JOB, {}, { ...SINGLETON, startAfter: ROLLUP_INTERVAL_SECONDS });
        await runRollup(deps.db, RUN_BUDGET_MS, subscribers);
      },
    },
  ];
}

/** At start-up: starts the chain, and a once-a-minute kick-off restarts it if it ever breaks. */
export async function startRollups(deps: Deps): Promise<void> {
  await deps.queue.send(ROLLUP_JOB, {}, SINGLETON);
  await deps.queue.schedule(ROLLUP_JOB, WATCHDOG_CRON, SINGLETON);
}
