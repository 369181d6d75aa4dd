import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { recheckDueDomains } from './domains.service.ts';

export const DOMAIN_CHECK_JOB = 'domains.check';
const SINGLETON = { singletonKey: DOMAIN_CHECK_JOB };
const WATCHDOG_CRON = '* * * * *';

/**
 * The periodic re-check of pending and verified domains (docs/architecture.md DOMAIN_CHECK_INTERVAL_SECONDS).
 * Cron cannot express an interval in seconds, so the job is a chain: each run first queues the next
 * one `interval` seconds ahead, then checks. The queue's `stately` policy allows one queued and one
 * active job, so across every process there is one chain: a second start-up's kick-off, or a run
 * that overlaps the next, is refused by pg-boss rather than doubling the work.
 */
export function domainJobs(deps: Deps): JobDefinition[] {
  const interval = deps.config.domainCheckIntervalSeconds;
  return [
    {
      name: DOMAIN_CHECK_JOB,
      // No retries: a failed run is simply followed by the next one, already queued. No NOTIFY: it
      // fires when a job is inserted, not when its startAfter comes, so a deferred job is found by
      // polling, paced to the interval (at most 30 s late).
      queue: { policy: 'stately', notify: false, retryLimit: 0, expireInSeconds: Math.max(15 * 60, interval * 2) },
      work: { batchSize: 1, pollingIntervalSeconds: Math.min(30, Math.max(1, Math.floor(interval / 5))) },
      async handle() {
        await deps.queue.send(DOMAIN_CHECK_JOB, {}, { ...SINGLETON, startAfter: interval });
        const checked = await recheckDueDomains(deps, interval * 1000);
        if (checked) deps.log.debug({ checked }, 'domains re-checked');
      },
    },
  ];
}

/**
 * Called at start-up: starts the chain if none is queued, and schedules a once-a-minute kick-off as
 * a watchdog, so a chain broken by a failed enqueue restarts by itself. Both are refused by the
 * stately policy while a next run is queued, which is nearly always.
 */
export async function startDomainChecks(deps: Deps): Promise<void> {
  await deps.queue.send(DOMAIN_CHECK_JOB, {}, SINGLETON);
  await deps.queue.schedule(DOMAIN_CHECK_JOB, WATCHDOG_CRON, SINGLETON);
}
