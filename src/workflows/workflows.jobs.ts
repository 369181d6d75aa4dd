import type { Queryable } from '../db/index.ts';
import type { Deps, EventsSubscriber } from '../deps.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import { nextDueAt, releaseExecutionsOf, resumeFromStoredEvents } from './engine/engine.queries.ts';
import { type RunSignals, runDue, type Timers } from './engine/runner.ts';
import { triggerFromEvents } from './executions.queries.ts';

export const WORKFLOW_RUN_JOB = 'workflows.run';
/** A run hands the worker back after this long, queueing its own continuation. */
const RUN_BUDGET_MS = 20_000;
/** The backstop: a run every minute finds what a lost wake-up or a dead worker left behind. */
export const SWEEP_CRON = '* * * * *';
/** How often a worker also looks for waits whose event slipped past them. */
const SWEEP_INTERVAL_MS = 30_000;
const KICK_INTERVAL_MS = 100;
/** After a failed run, the loop tries again this soon. */
const RETRY_MS = 1000;

/** Queues a run now; the queue's `short` policy keeps at most one queued run per key. */
export async function enqueueRun(queue: JobQueue, tx?: Queryable): Promise<void> {
  await queue.send(WORKFLOW_RUN_JOB, {}, { singletonKey: 'now', ...(tx ? { tx } : {}) });
}

/** A durable timer: a run when `seconds` have passed, at most one queued per second. */
async function wakeUpIn(queue: JobQueue, seconds: number, tx?: Queryable): Promise<void> {
  const second = Math.ceil((Date.now() + seconds * 1000) / 1000);
  await queue.send(WORKFLOW_RUN_JOB, {}, { singletonKey: `at:${second}`, startAfter: new Date(second * 1000), ...(tx ? { tx } : {}) });
}

/** This server's kicker (one per queue): a queued run, for the other workers to share a burst. */
function kicker(deps: Pick<Deps, 'queue' | 'log'>): () => Promise<void> {
  let kick = kickers.get(deps.queue);
  if (!kick) kickers.set(deps.queue, (kick = newKicker(deps)));
  return kick;
}

const kickers = new WeakMap<JobQueue, () => Promise<void>>();

/**
 * A run now, at most once per KICK_INTERVAL_MS from this process: a burst of triggers queues one
 * run at once and one more at the end of the interval (which picks up the rest), instead of a
 * queue write per event. Not durable by itself, and need not be: what it starts is already due in
 * the table, and the minute's backstop finds it if the process dies first.
 */
function newKicker(deps: Pick<Deps, 'queue' | 'log'>): () => Promise<void> {
  let last = 0;
  let _trailing: NodeJS.Timeout | undefined;
  const kick = () => {
    last = Date.now();
    return enqueueRun(deps.queue);
  };
  return async () => {
    const wait = KICK_INTERVAL_MS - (Date.now() - last);
    if (wait <= 0) return kick();
    _trailing ??= setTimeout(() => {
      _trailing = undefined;
      kick().catch((error) => deps.log.warn({ err: error }, 'could not queue a workflow run'));
    }, wait);
  };
}

const engines = new WeakMap<JobQueue, EngineLoop>();

/** This worker process's engine loop (one per queue). */
function engineOf(deps: Deps): EngineLoop {
  let engine = engines.get(deps.queue);
  if (!engine) engines.set(deps.queue, (engine = new EngineLoop(deps)));
  return engine;
}

/**
 * The engine loop of one worker process (docs/decisions/workflows.md, "Claim"): runs beside the
 * queue's handlers, one run at a time, and is woken in-process: by the trigger that created
 * executions, by a wait resumed, by a dead worker's take-over, and by `workflows.run` jobs (other
 * processes, the timers, the backstop). A wake-up during a run makes its lanes claim once more
 * before they stop, so a trigger is claimed as soon as a lane is free rather than after the run and
 * a queue round trip. Nothing here is state: every execution is due in the table, and a process
 * that dies leaves it to the other workers, its successor's start-up run and the backstop.
 */
class EngineLoop {
  private kicks = 0;
  private running: Promise<void> | undefined;
  private again = false;
  private halted = false;
  private lastSweep = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private readonly timers: Timers;
  private wakers: Array<() => void> = [];
  private readonly signals: RunSignals = {
    kicks: () => this.kicks,
    woken: () => new Promise((resolve) => this.wakers.push(resolve)),
    halted: () => this.halted,
  };

  constructor(private readonly deps: Deps) {
    this.timers = { wake: (seconds, tx) => wakeUpIn(deps.queue, seconds, tx), kick: async () => this.kick() };
  }

  /** Something is due now: a run starts, or the running one claims again. */
  kick(): void {
    if (this.halted) return;
    this.kicks++;
    for (const wake of this.wakers.splice(0)) wake();
    if (this.running) {
      this.again = true;
      return;
    }
    this.again = false;
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again) this.kick();
    });
  }

  /** A run in `ms` in this process, after a failed run (the earliest asked for is kept). */
  private wakeIn(ms: number): void {
    const at = Date.now() + ms;
    if (this.halted || at >= this.timerAt) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.kick();
    }, at - Date.now()).unref();
  }

  /** Stops waking and waits for the run in progress (its lanes stop after their batch). */
  async stop(): Promise<void> {
    this.halted = true;
    clearTimeout(this.timer);
    for (const wake of this.wakers.splice(0)) wake();
    await this.running;
  }

  private async pass(): Promise<void> {
    const { deps } = this;
    try {
      if (Date.now() - this.lastSweep > SWEEP_INTERVAL_MS) {
        this.lastSweep = Date.now();
        await resumeFromStoredEvents(deps.db, null);
      }
      if (await runDue(deps, RUN_BUDGET_MS, this.timers, this.signals)) {
        this.again = true;
        return;
      }
      if (this.again || this.halted) return;
      // Timers stay queued jobs, for whichever worker polls first (docs/decisions/workflows.md, "Timers").
      const next = await nextDueAt(deps.db);
      if (next) await wakeUpIn(deps.queue, Math.max(0, (next.getTime() - Date.now()) / 1000));
    } catch (error) {
      deps.log.error({ err: error }, 'workflow run failed; trying again shortly');
      this.wakeIn(RETRY_MS);
    }
  }
}

/**
 * The workflow engine's jobs (docs/decisions/workflows.md). `workflows.run` wakes this process's
 * engine loop; it is queued by triggers (for the other workers), by timers (DELAY, WAIT_FOR_EVENT
 * timeouts), by API writes and by the minute's backstop.
 */
export function workflowsJobs(deps: Deps): JobDefinition<any>[] {
  const run: JobDefinition = {
    name: WORKFLOW_RUN_JOB,
    // No retries: the job only wakes the loop, which tries a failed run again itself.
    queue: { policy: 'short', retryLimit: 0, expireInSeconds: 15 * 60 },
    // Timers are delayed jobs, which NOTIFY does not announce: poll every second (docs/decisions/workflows.md).
    work: { batchSize: 10, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
    handle: async () => engineOf(deps).kick(),
    stopping: () => void engineOf(deps).stop(),
    stopped: () => engineOf(deps).stop(),
  };
  return [run];
}

/**
 * The events subscriber (wired in modules.ts): triggers ride on events.dispatch, starting and
 * resuming executions in one statement, then queueing a run. No transaction: events.dispatch runs
 * its jobs one by one, so its round trips bound how fast triggers start. The run is queued after
 * it; a crash in between leaves the new executions due, for the next run or the minute's backstop.
 */
export function workflowTriggers(deps: Deps): EventsSubscriber {
  const kick = kicker(deps);
  return async ({ projectId, eventIds }) => {
    const { started, resumed } = await triggerFromEvents(deps.db, projectId, eventIds);
    if (started + resumed === 0) return;
    // This process is a worker (events.dispatch runs in workers): its loop claims them at once.
    engineOf(deps).kick();
    await kick();
  };
}

/** The executions of dead workers are due now (src/jobs/instances.ts): a run takes them. */
export async function takeOverWorkflows(deps: Deps, deadInstances: number[]): Promise<void> {
  if ((await releaseExecutionsOf(deps.db, deadInstances)) > 0) engineOf(deps).kick();
}

/** At start-up (every process): a run now, for executions a stopped process left, and the backstop. */
export async function startWorkflows(deps: Deps): Promise<void> {
  await enqueueRun(deps.queue);
  await deps.queue.schedule(WORKFLOW_RUN_JOB, SWEEP_CRON, { singletonKey: 'cron' });
}
