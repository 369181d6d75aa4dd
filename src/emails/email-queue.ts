import type { Logger } from 'pino';
import type { Queryable } from '../db/index.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { trailingWaker } from '../jobs/waker.ts';

/**
 * The queue of email records: QUEUED records wait for a delivery run (src/delivery/delivery.jobs.ts),
 * which every path that commits records asks for here (docs/decisions/sending.md).
 */
export const DELIVERY_JOB = 'delivery.run';

/**
 * Queues a delivery run now (/v1/send, in its transaction). The queue's `short` policy keeps at
 * most one queued job per key: a burst of sends queues one run, which claims all of them.
 */
export async function enqueueDelivery(queue: JobQueue, tx?: Queryable): Promise<void> {
  await queue.send(DELIVERY_JOB, {}, { singletonKey: 'now', ...(tx ? { tx } : {}) });
}

const WAKE_INTERVAL_MS = 100;
const wakers = new WeakMap<JobQueue, () => void>();

/**
 * Queues a delivery run after a write that committed records (/v1/send): at most one wake-up per
 * 100 ms per process, never one per request (src/jobs/waker.ts). Call it after the commit.
 */
export function wakeDelivery(queue: JobQueue, log: Logger): void {
  let wake = wakers.get(queue);
  if (!wake)
    wakers.set(
      queue,
      (wake = trailingWaker(
        () => enqueueDelivery(queue),
        WAKE_INTERVAL_MS,
        (error) => log.warn({ err: error }, 'could not wake delivery'),
      )),
    );
  wake();
}
