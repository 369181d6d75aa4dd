import type { Deps, EventsSubscriber } from '../deps.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import { trailingWaker } from '../jobs/waker.ts';
import { claimDispatch, type DispatchRow, deleteDispatched } from './events.queries.ts';

export const EVENTS_DISPATCH_JOB = 'events.dispatch';

/** Rows claimed per query; a row holds the events of one write. */
const CLAIM = 50;
/** Longer than any subscriber takes on a row; only a dead worker's rows outlive it. */
const LEASE_SECONDS = 60;
/** A drain queues a drain for the other workers after this long, and goes on. */
const RUN_BUDGET_MS = 10_000;
/** The drain's own follow-up: with the queue's 2 s backstop poll, events wait at most ~3 s. */
const TICK_SECONDS = 1;
const BACKSTOP_CRON = '* * * * *';
/** In-process drains start at most this often (docs/decisions/contacts-and-events.md, "Waking the drain"). */
const DRAIN_GAP_MS = 100;
/** Queued wake-ups sent by one process at most this often: under load a drain is already on its way. */
const WAKE_INTERVAL_MS = 200;

/** Queues a drain now (at most one waits at a time: the queue's `short` policy). */
export async function wakeDispatcher(queue: JobQueue): Promise<void> {
  await queue.send(EVENTS_DISPATCH_JOB, {}, { singletonKey: 'now' });
}

const drains = new WeakMap<JobQueue, DrainLoop>();
const queuedWakers = new WeakMap<JobQueue, () => void>();

/**
 * Wakes the drain once a write that filled event_dispatch committed (docs/decisions/contacts-and-events.md,
 * "Waking the drain"): this process's own loop when it runs the handlers, else a
 * queued drain for the workers, at most one every 200 ms per process (src/jobs/waker.ts).
 */
export function wakeDispatch(deps: Pick<Deps, 'queue' | 'log'>): void {
  if (deps.queue.works && drains.get(deps.queue)?.wake()) return;
  let queued = queuedWakers.get(deps.queue);
  if (!queued)
    queuedWakers.set(
      deps.queue,
      (queued = trailingWaker(
        () => wakeDispatcher(deps.queue),
        WAKE_INTERVAL_MS,
        (error) => deps.log.warn({ err: error }, 'could not wake the event dispatcher'),
      )),
    );
  queued();
}

/**
 * The events drain of one process (docs/decisions/contacts-and-events.md, "Waking the drain"):
 * one drain at a time, woken in-process by the writers of this process and by the
 * `events.dispatch` job (other processes' writers, the drain's tick, the backstop). A wake-up
 * during a drain makes it claim again before it stops, so an event committed while it ran is not
 * left to the tick. Nothing here is state: every waiting event is a row of event_dispatch.
 */
class DrainLoop {
  private running: Promise<void> | undefined;
  private again = false;
  private halted = false;
  private lastEnded = 0;

  constructor(
    private readonly deps: Deps,
    private readonly subscribers: EventsSubscriber[],
  ) {}

  /** A drain now, or the running one claims again; false once the process stops. */
  wake(): boolean {
    if (this.halted) return false;
    if (this.running) {
      this.again = true;
      return true;
    }
    this.again = false;
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again) this.wake();
    });
    return true;
  }

  /**
   * The job's drain: wakes the loop and waits for a drain that claimed after the wake-up (the one
   * running then may have claimed before; the one after it did not). Not for the loop to go idle,
   * which writers of this process may keep busy longer than the job's expiry.
   */
  async run(): Promise<void> {
    this.wake();
    const current = this.running;
    await current;
    if (this.running && this.running !== current) await this.running;
  }

  /** Stops waking and waits for the drain in progress (it stops after its claimed rows). */
  async stop(): Promise<void> {
    this.halted = true;
    while (this.running) await this.running;
  }

  private async pass(): Promise<void> {
    // Drains at most every DRAIN_GAP_MS: wake-ups meanwhile join the next one, whose claims are
    // fuller, instead of one drain (and one trigger statement) per tracked write.
    const wait = this.lastEnded + DRAIN_GAP_MS - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.halted) return;
    try {
      if (await drain(this.deps, this.subscribers, () => this.halted)) {
        // Its budget spent, the drain goes on here and queues one for the other workers to share the rest.
        this.again = true;
        await wakeDispatcher(this.deps.queue);
      }
    } catch (error) {
      this.deps.log.error({ err: error }, 'the events drain failed; its rows are dispatched again later');
    } finally {
      this.lastEnded = Date.now();
    }
  }
}

/**
 * Hands recorded events to the subscribers (webhook fan-out, workflow triggers) in the worker,
 * from the event_dispatch table their writers filled (at least once: a row is deleted after every
 * subscriber took it; one that throws leaves it to a later drain when its lease ends).
 */
export function eventsJobs(deps: Deps): JobDefinition<any>[] {
  // Made once per server, with the deps they run with (a subscriber may keep state, like a timer).
  const subscribers = deps.registry.events.map((subscribe) => subscribe(deps));
  const loop = new DrainLoop(deps, subscribers);
  drains.set(deps.queue, loop);
  const dispatch: JobDefinition = {
    name: EVENTS_DISPATCH_JOB,
    queue: { policy: 'short', retryLimit: 0, expireInSeconds: 15 * 60 },
    work: { batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
    handle: async () => {
      await loop.run();
      await deps.queue.send(EVENTS_DISPATCH_JOB, {}, { singletonKey: 'tick', startAfter: TICK_SECONDS });
    },
    stopping: () => void loop.stop(),
    stopped: () => loop.stop(),
  };
  return [dispatch];
}

/** Drains waiting rows until none is left, the process stops, or the budget is spent (then true: more may wait). */
async function drain(deps: Deps, subscribers: EventsSubscriber[], halted: () => boolean): Promise<boolean> {
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
    if (rows.length < CLAIM || halted()) return false;
    if (Date.now() - started > RUN_BUDGET_MS) return true;
  }
}

/** At start-up: a drain now (rows left by a stopped process) and the backstop schedule. */
export async function startEventDispatch(deps: Pick<Deps, 'queue'>): Promise<void> {
  await wakeDispatcher(deps.queue);
  await deps.queue.schedule(EVENTS_DISPATCH_JOB, BACKSTOP_CRON, { singletonKey: 'cron' });
}
