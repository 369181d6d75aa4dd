import type { Resolver } from 'node:dns/promises';
import type { Logger } from 'pino';
import type { Queryable } from '../db/index.ts';
import { Pacing } from '../deliverability/pacing.ts';
import type { Deps } from '../deps.ts';
import { createResolver } from '../dns/resolver.ts';
import { DELIVERY_JOB, enqueueDelivery } from '../emails/email-queue.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import { nextDueAt, releaseClaimsOf } from './delivery.queries.ts';
import { deliverDue, handOffsFor } from './delivery.service.ts';
import { type Transport, transportFor } from './transport.ts';

/** A run hands the worker back after this long, queueing its own continuation. */
const RUN_BUDGET_MS = 20_000;
const BACKSTOP_CRON = '* * * * *';
/** An idle transport closes its SMTP connections after this long without a run. */
const TRANSPORT_IDLE_MS = 10_000;

/**
 * One transport per process, kept open across runs: a burst of sends queues run after run, and a
 * new pool per run would open its SMTP connections again each time. Closed once idle, so a quiet
 * worker holds no connection to the relay.
 */
class SharedTransport {
  private transport: Transport | undefined;
  private idle: NodeJS.Timeout | undefined;
  private users = 0;
  constructor(private readonly open: () => Transport) {}

  async use<T>(work: (transport: Transport) => Promise<T>): Promise<T> {
    clearTimeout(this.idle);
    this.users++;
    try {
      return await work((this.transport ??= this.open()));
    } finally {
      if (--this.users === 0) this.idle = setTimeout(() => this.close(), TRANSPORT_IDLE_MS).unref();
    }
  }

  close(): void {
    clearTimeout(this.idle);
    this.transport?.close();
    this.transport = undefined;
  }
}

/** A run at `at` (a retry's backoff or a lease's end), one queued job per second at most. */
async function wakeUpAt(queue: JobQueue, at: Date): Promise<void> {
  const second = Math.ceil(at.getTime() / 1000);
  if (second * 1000 <= Date.now()) return enqueueDelivery(queue);
  await queue.send(DELIVERY_JOB, {}, { singletonKey: `at:${second}`, startAfter: new Date(second * 1000) });
}

/**
 * The delivery worker (docs/decisions/sending.md). Runs are not tied to records: each run claims whatever is due
 * (FOR UPDATE SKIP LOCKED, so any number of workers share the work), then queues the next run for
 * the earliest retry or lease end. A once-a-minute schedule is the backstop if a wake-up is lost.
 */
export function deliveryJobs(deps: Deps): JobDefinition[] {
  let resolver: Promise<Resolver> | undefined;
  const resolverReady = () =>
    (resolver ??= createResolver(deps.config.dnsServers).catch((error: Error) => {
      resolver = undefined; // tried again at the next lookup
      throw error;
    }));
  // Mail to the outbox has no receiver to defer it: no provider throttles there.
  const pacing = new Pacing(deps.db, deps.config, resolverReady, Boolean(deps.config.smtpUrl), deps.warmupClock);
  const transport = new SharedTransport(() => transportFor(deps.config));
  const handOffs = handOffsFor(deps);
  return [
    {
      name: DELIVERY_JOB,
      // No retries: a failed run leaves its records to their leases, and the next run takes them.
      queue: { policy: 'short', retryLimit: 0, expireInSeconds: 15 * 60 },
      work: { batchSize: 10, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
      // SIGTERM: no new claim or hand-off; what is in flight finishes, the rest goes back to the queue.
      stopping: () => (handOffs.stopping = true),
      stopped: () => transport.close(),
      async handle() {
        const more = await transport.use((open) => deliverDue(deps, open, pacing, handOffs, RUN_BUDGET_MS));
        // Records this stopping process gave back are due now: a run for the other workers.
        if (more || handOffs.stopping) return enqueueDelivery(deps.queue);
        const next = await nextDueAt(deps.db);
        if (next) await wakeUpAt(deps.queue, next);
      },
    },
  ];
}

/** The claims of dead workers are due now (src/jobs/instances.ts): a run takes them. */
export async function takeOverDelivery(deps: Deps, deadInstances: number[]): Promise<void> {
  if ((await releaseClaimsOf(deps.db, deadInstances)) > 0) await enqueueDelivery(deps.queue);
}

/** At start-up: a run now (records left by a stopped process) and the backstop schedule. */
export async function startDelivery(deps: Deps): Promise<void> {
  await enqueueDelivery(deps.queue);
  await deps.queue.schedule(DELIVERY_JOB, BACKSTOP_CRON, { singletonKey: 'cron' });
}
