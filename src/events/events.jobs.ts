import type { Deps, EventsSubscriber } from '../deps.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import { trailingWaker } from '../jobs/waker.ts';
import { claimDispatch, type DispatchRow, deleteDispatched } from './events.queries.ts';

export const EVENTS_DISPATCH_JOB = 'events.dispatch';

/** Rows claimed per query; a row holds the events of one write. */
const CLAIM = 50;
/** Longer than any subscriber takes on a row; only a dead worker's rows outlive it. */
const LEASE_SECONDS = 60;
/** A drain hands the worker back after this long, queueing its own continuation. */
const RUN_BUDGET_MS = 10_000;
/** The drain's own follow-up: with the queue's 2 s backstop poll, events wait at most ~3 s. */
const TICK_SECONDS = 1;
const BACKSTOP_CRON = '* * * * *';
/** Wake-ups sent by one process at most this often: under load a drain is already on its way. */
const WAKE_INTERVAL_MS = 200;

/** Queues a drain now (at most one waits at a time: the queue's `short` policy). */
export async function wakeDispatcher(queue: JobQueue): Promise<void> {
  await queue.send(EVENTS_DISPATCH_JOB, {}, { singletonKey: 'now' });
}

/** The drain's wake-ups for one process's writers, sent after their write committed (src/jobs/waker.ts). */
export function dispatchWaker(deps: Pick<Deps, 'queue' | 'log'>): () => void {
  return trailingWaker(
    () => wakeDispatcher(deps.queue),
    WAKE_INTERVAL_MS,
    (error) => deps.log.warn({ err: error }, 'could not wake the event dispatcher'),
  );
}

/**
 * Hands recorded events to the subscribers (webhook fan-out, workflow triggers) in the worker,
 * from the event_dispatch table their writers filled (at least once: a row is deleted after every
 * subscriber took it; one that throws leaves it to a later drain when its lease ends).
 */
export function eventsJobs(deps: Deps): JobDefinition<any>[] {
  // Made once per server, with the deps they run with (a subscriber may keep state, like a timer).
  const subscribers = deps.registry.events.map((subscribe) => subscribe(deps));
  const dispatch: JobDefinition = {
    name: EVENTS_DISPATCH_JOB,
    queue: { policy: 'short', retryLimit: 0, expireInSeconds: 15 * 60 },
    work: { batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
    handle: async () => {
      const more = await drain(deps, subscribers);
      await deps.queue.send(EVENTS_DISPATCH_JOB, {}, more ? { singletonKey: 'now' } : { singletonKey: 'tick', startAfter: TICK_SECONDS });
    },
  };
  return [dispatch];
}

/** Drains waiting rows until none is left or the budget is spent (then true: more may wait). */
async function drain(deps: Deps, subscribers: EventsSubscriber[]): Promise<boolean> {
  const started = Date.now();
  for (;;) {
    const rows = await claimDispatch(deps.db, CLAIM, LEASE_SECONDS);
    // One hand-over per project for all its claimed rows: a subscriber's work (a transaction per
    // call for workflow triggers) is per call, not per event.
    const byProject = new Map<string, DispatchRow[]>();
    for (const row of rows) byProject.set(row.project_id, [...(byProject.get(row.project_id) ?? []), row]);
    const done: number[] = [];
    for (const [projectId, projectRows] of byProject) {
      const eventIds = projectRows.flatMap((row) => row.event_ids);
      try {
        for (const subscriber of subscribers) await subscriber({ projectId, eventIds });
        done.push(...projectRows.map((row) => row.id));
      } catch (error) {
        deps.log.error({ err: error, projectId }, 'an event subscriber failed; the events are dispatched again later');
      }
    }
    await deleteDispatched(deps.db, done);
    if (rows.length < CLAIM) return false;
    if (Date.now() - started > RUN_BUDGET_MS) return true;
  }
}

/** At start-up: a drain now (rows left by a stopped process) and the backstop schedule. */
export async function startEventDispatch(deps: Pick<Deps, 'queue'>): Promise<void> {
  await wakeDispatcher(deps.queue);
  await deps.queue.schedule(EVENTS_DISPATCH_JOB, BACKSTOP_CRON, { singletonKey: 'cron' });
}
