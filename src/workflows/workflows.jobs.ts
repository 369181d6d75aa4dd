import type { Queryable } from '../db/index.ts';
import type { Deps, EventsSubscriber } from '../deps.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import { nextDueAt, releaseExecutionsOf, resumeFromStoredEvents } from './engine/engine.queries.ts';
import { runDue, type Timers } from './engine/runner.ts';
import { triggerFromEvents } from './executions.queries.ts';

export const WORKFLOW_RUN_JOB = 'workflows.run';
/** A run hands the worker back after this long, queueing its own continuation. */
const RUN_BUDGET_MS = 20_000;
/** The backstop: a run every minute finds what a lost wake-up or a dead worker left behind. */
export const SWEEP_CRON = '* * * * *';
/** How often a worker also looks for waits whose event slipped past them. */
const SWEEP_INTERVAL_MS = 30_000;
const KICK_INTERVAL_MS = 100;

/** Queues a run now; the queue's `short` policy keeps at most one queued run per key. */
export async function enqueueRun(queue: JobQueue, tx?: Queryable): Promise<void> {
  await queue.send(WORKFLOW_RUN_JOB, {}, { singletonKey: 'now', ...(tx ? { tx } : {}) });
}

/** A durable timer: a run when `seconds` have passed, at most one queued per second. */
async function wakeUpIn(queue: JobQueue, seconds: number, tx?: Queryable): Promise<void> {
  const second = Math.ceil((Date.now() + seconds * 1000) / 1000);
  await queue.send(WORKFLOW_RUN_JOB, {}, { singletonKey: `at:${second}`, startAfter: new Date(second * 1000), ...(tx ? { tx } : {}) });
}

/** This server's kicker (one per queue), shared by the trigger and the runs it wakes. */
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

/**
 * The workflow engine's jobs (docs/decisions/workflows.md; docs/decisions/workflows.md). `workflows.run` claims due
 * executions and advances them; it is queued by triggers (workflowTriggers), by timers (DELAY,
 * WAIT_FOR_EVENT timeouts, leases) and by the minute's backstop.
 */
export function workflowsJobs(deps: Deps): JobDefinition<any>[] {
  const timers: Timers = { wake: (seconds, tx) => wakeUpIn(deps.queue, seconds, tx), kick: kicker(deps) };
  let lastSweep = 0;
  const run: JobDefinition = {
    name: WORKFLOW_RUN_JOB,
    // No retries: a failed run leaves its executions to their leases, and a later run takes them.
    queue: { policy: 'short', retryLimit: 0, expireInSeconds: 15 * 60 },
    // Timers are delayed jobs, which NOTIFY does not announce: poll every second (docs/decisions/workflows.md: 5 s).
    work: { batchSize: 10, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
    async handle() {
      if (Date.now() - lastSweep > SWEEP_INTERVAL_MS) {
        lastSweep = Date.now();
        await resumeFromStoredEvents(deps.db, null);
      }
      if (await runDue(deps, RUN_BUDGET_MS, timers)) return enqueueRun(deps.queue);
      const next = await nextDueAt(deps.db);
      if (next) await wakeUpIn(deps.queue, Math.max(0, (next.getTime() - Date.now()) / 1000));
    },
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
    if (started + resumed > 0) await kick();
  };
}

/** The executions of dead workers are due now (src/jobs/instances.ts): a run takes them. */
export async function takeOverWorkflows(deps: Deps, deadInstances: number[]): Promise<void> {
  if ((await releaseExecutionsOf(deps.db, deadInstances)) > 0) await enqueueRun(deps.queue);
}

/** At start-up (every process): a run now, for executions a stopped process left, and the backstop. */
export async function startWorkflows(deps: Deps): Promise<void> {
  await enqueueRun(deps.queue);
  await deps.queue.schedule(WORKFLOW_RUN_JOB, SWEEP_CRON, { singletonKey: 'cron' });
}
