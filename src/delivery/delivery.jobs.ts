import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import { nextDueAt } from './delivery.queries.ts';
import { deliverDue } from './delivery.service.ts';
import { Throttle } from './throttle.ts';

export const DELIVERY_JOB = 'delivery.run';
/** A run hands the worker back after this long, queueing its own continuation. */
const RUN_BUDGET_MS = 20_000;
const BACKSTOP_CRON = '* * * * *';

/**
 * Queues a delivery run now (/v1/send, in its transaction). The queue's `short` policy keeps at
 * most one queued job per key: a burst of sends queues one run, which claims all of them.
 */
export async function enqueueDelivery(queue: JobQueue, tx?: Queryable): Promise<void> {
  await queue.send(DELIVERY_JOB, {}, { singletonKey: 'now', ...(tx ? { tx } : {}) });
}

/** A run at `at` (a retry's backoff or a lease's end), one queued job per second at most. */
async function wakeUpAt(queue: JobQueue, at: Date): Promise<void> {
  const second = Math.ceil(at.getTime() / 1000);
  if (second * 1000 <= Date.now()) return enqueueDelivery(queue);
  await queue.send(DELIVERY_JOB, {}, { singletonKey: `at:${second}`, startAfter: new Date(second * 1000) });
}

/**
 * The delivery worker (contract §6). Runs are not tied to records: each run claims whatever is due
 * (FOR UPDATE SKIP LOCKED, so any number of workers share the work), then queues the next run for
 * the earliest retry or lease end. A once-a-minute schedule is the backstop if a wake-up is lost.
 */
export function deliveryJobs(deps: Deps): JobDefinition[] {
  const throttle = new Throttle(deps.config.sendRatePerSecond);
  return [
    {
      name: DELIVERY_JOB,
      // No retries: a failed run leaves its records to their leases, and the next run takes them.
      queue: { policy: 'short', retryLimit: 0, expireInSeconds: 15 * 60 },
      work: { batchSize: 10, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
      async handle() {
        const more = await deliverDue(deps, throttle, RUN_BUDGET_MS);
        if (more) return enqueueDelivery(deps.queue);
        const next = await nextDueAt(deps.db);
        if (next) await wakeUpAt(deps.queue, next);
      },
    },
  ];
}

/** At start-up: a run now (records left by a stopped process) and the backstop schedule. */
export async function startDelivery(deps: Deps): Promise<void> {
  await enqueueDelivery(deps.queue);
  await deps.queue.schedule(DELIVERY_JOB, BACKSTOP_CRON, { singletonKey: 'cron' });
}
