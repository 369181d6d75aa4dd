import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { enqueueDelivery } from '../../emails/email-queue.ts';
import { writeEmailRecords } from '../../emails/email-record.ts';
import { ProjectRotation } from '../../jobs/project-rotation.ts';
import { type Claimed, claimDue, dueProjects, lockClaimed, type Progress, resumeFromStoredEvents, saveProgress, startCall } from './engine.queries.ts';
import { RunContext, type WorkflowGraph } from './run-context.ts';
import type { Effects } from './step-env.ts';
import { type CallOutcome, stepThrough, type Walk } from './step-through.ts';
import { walkBatch } from './walk-batch.ts';
import { callWebhook } from './webhook.ts';

/** How long a claim holds before another worker may take the execution over (renewed by each transaction). */
export const LEASE_SECONDS = 30;
/** Executions claimed, and advanced in one transaction, at a time (10k-contact bench: 50 → p99 lag 5.3 s, 200 → 2.6 s). */
const BATCH = 200;
/** New executions the start lane claims at a time: a small batch, so a new one waits behind few others. */
const START_BATCH = 50;
/** On Citus: due executions read to find the projects of a round (the oldest first). */
const SCAN = BATCH * 5;
/** WEBHOOK calls (and other follow-ups) in flight at once per batch. */
const FOLLOW_UPS = 8;

/** How the engine asks for a later run: at a timer (inside the step transaction), or now. */
export type Timers = { wake: (seconds: number, tx: Queryable) => Promise<void>; kick: () => Promise<void> };

/** Where a transaction left one execution. */
type Outcome = { claimed: Claimed; end: 'lost' | 'finished' | 'continue' | 'waiting' | 'call'; awaitsEvent?: boolean; calling?: Walk['calling'] };

type Graphs = Map<string, WorkflowGraph>;
// An execution runs on the graph of the version it started on (docs/workflow-versions.md).
const graphKey = (c: Claimed) => `${c.project_id}:${c.workflow_id}:${c.workflow_version}`;

function outcomeOf(claimed: Claimed, walk: Walk): Outcome {
  if (walk.calling) return { claimed, end: 'call', calling: walk.calling };
  const { status, waitEventName } = walk.state;
  if (status === 'WAITING') return { claimed, end: 'waiting', awaitsEvent: waitEventName !== null };
  return { claimed, end: status === 'RUNNING' ? 'continue' : 'finished' };
}

/**
 * One step transaction over one or many claimed executions (docs/decisions/workflows.md): lock
 * those whose claim is still ours, walk each along its steps (their contact writes made together:
 * walk-batch.ts), then write every step record and new state in one statement, with the timers and
 * the delivery run they need. Step effects (contact writes, email records) go through the same
 * transaction, so a step happens exactly when its record commits. An unexpected error rolls it all
 * back and is thrown.
 */
async function stepTransaction(
  deps: Deps,
  run: RunContext,
  timers: Timers,
  graphs: Graphs,
  claimed: Claimed[],
  options: { alone: boolean; call?: CallOutcome },
): Promise<Outcome[]> {
  return deps.db.transaction(async (tx) => {
    const locked = new Map((await lockClaimed(tx, claimed, LEASE_SECONDS)).map((exec) => [exec.id, exec]));
    const effects: Effects = { emails: [], caps: new Map() };
    const progress: Progress[] = [];
    const outcomes: Outcome[] = [];
    const wakes = new Set<number>();
    const walks = await walkBatch(tx, claimed.length, async (index, writeContact) => {
      const c = claimed[index]!;
      const exec = locked.get(c.id);
      const graph = graphs.get(graphKey(c));
      if (!exec || !graph) return undefined;
      return stepThrough({ deps, tx, run, exec, graph, effects, writeContact }, { alone: options.alone, call: options.call });
    });
    for (const [index, walk] of walks.entries()) {
      const c = claimed[index]!;
      if (!walk) {
        outcomes.push({ claimed: c, end: 'lost' });
        continue;
      }
      progress.push({ claimed: c, records: walk.records, state: walk.state });
      if (walk.state.status === 'WAITING' && walk.state.waitSeconds !== null) wakes.add(walk.state.waitSeconds);
      outcomes.push(outcomeOf(c, walk));
    }
    // The email records first: a record's step output (its status) is final once they are written.
    await writeEmailRecords(tx, effects.emails);
    await saveProgress(tx, progress);
    for (const seconds of wakes) await timers.wake(seconds, tx);
    if (effects.emails.some((email) => email.record.status === 'QUEUED')) await enqueueDelivery(deps.queue, tx);
    return outcomes;
  });
}

/** Records an unexpected error against the step the execution stands on (once a replay pinned it). */
async function failCurrentStep(deps: Deps, graphs: Graphs, claimed: Claimed, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  const at = new Date().toISOString();
  await deps.db.transaction(async (tx) => {
    const [exec] = await lockClaimed(tx, [claimed], LEASE_SECONDS);
    if (!exec) return;
    const stepId = exec.current_step_id;
    const stepType = (stepId && graphs.get(graphKey(claimed))?.steps.get(stepId)?.type) || 'UNKNOWN';
    const records = stepId ? [{ step_id: stepId, step_type: stepType, status: 'FAILED' as const, output: null, error: message, started_at: at, completed_at: at }] : [];
    const state = {
      status: 'FAILED' as const,
      currentStepId: stepId,
      waitSeconds: null,
      waitEventName: null,
      waitBegins: false,
      exitReason: null,
      error: `${stepType} step failed: ${message}`,
    };
    await saveProgress(tx, [{ claimed, records, state }]);
  });
}

/** Waits just committed may have missed an event tracked meanwhile: look once more (see engine.queries.ts). */
async function recheckWaits(deps: Deps, timers: Timers, outcomes: Outcome[]): Promise<void> {
  const targets = outcomes.filter((o) => o.end === 'waiting' && o.awaitsEvent).map((o) => ({ projectId: o.claimed.project_id, id: o.claimed.id }));
  if (targets.length && (await resumeFromStoredEvents(deps.db, targets)) > 0) await timers.kick();
}

/**
 * Takes one execution on alone after a batch: WEBHOOK calls between transactions (never inside
 * one), further steps, and after an unexpected error a replay one step per transaction, so the
 * failure is pinned on the step that causes it, and recorded.
 */
async function followUp(deps: Deps, run: RunContext, timers: Timers, graphs: Graphs, first: Outcome): Promise<void> {
  let current = first;
  let alone = false;
  let call: CallOutcome | undefined;
  for (;;) {
    if (current.end === 'waiting') return recheckWaits(deps, timers, [current]);
    if (current.end !== 'call' && current.end !== 'continue') return;
    if (current.end === 'call' && !call) {
      const { step, request } = current.calling!;
      // A follow-up may have queued behind slow calls: the execution must still be ours. The attempt
      // counts from here, when the request is about to leave (an interruption before is no attempt).
      if (!(await startCall(deps.db, current.claimed, LEASE_SECONDS))) return;
      try {
        call = { stepId: step.id, response: await callWebhook(deps.outbound, request) };
      } catch (error) {
        call = { stepId: step.id, error: (error as Error).message };
      }
    }
    try {
      [current] = (await stepTransaction(deps, run, timers, graphs, [current.claimed], { alone, call })) as [Outcome];
      call = undefined;
    } catch (error) {
      if (alone) {
        deps.log.warn({ err: error, executionId: current.claimed.id }, 'workflow step failed unexpectedly');
        return failCurrentStep(deps, graphs, current.claimed, error);
      }
      alone = true;
    }
  }
}

/**
 * Follow-ups of a run (WEBHOOK calls and what comes after them), FOLLOW_UPS at a time, so a slow
 * endpoint holds its own executions and not the next batch. Claiming waits while many are queued.
 */
class FollowUps {
  private readonly queue: Array<() => Promise<void>> = [];
  private active = 0;
  private waiters: Array<() => void> = [];

  add(work: () => Promise<void>): void {
    this.queue.push(work);
    this.pump();
  }

  private pump(): void {
    while (this.active < FOLLOW_UPS && this.queue.length) {
      const work = this.queue.shift()!;
      this.active++;
      void work().finally(() => {
        this.active--;
        this.pump();
        for (const wake of this.waiters.splice(0)) wake();
      });
    }
  }

  /** Resolves once at most `limit` follow-ups are left (0: all done). */
  async drain(limit = 0): Promise<void> {
    while (this.queue.length + this.active > limit) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
}

/** Advances a claimed batch: one transaction for all; executions that call out or have more to do go on as follow-ups. */
async function processBatch(deps: Deps, run: RunContext, timers: Timers, batch: Claimed[], followUps: FollowUps): Promise<void> {
  const graphs: Graphs = new Map();
  for (const c of batch) {
    const graph = await run.graph(c.project_id, c.workflow_id, c.workflow_version);
    if (graph) graphs.set(graphKey(c), graph);
  }
  let outcomes: Outcome[];
  try {
    outcomes = await stepTransaction(deps, run, timers, graphs, batch, { alone: false });
  } catch (error) {
    // One execution's unexpected error must not hold the others: each goes on by itself.
    deps.log.debug({ err: error }, 'workflow batch rolled back; advancing its executions one by one');
    outcomes = batch.map((claimed) => ({ claimed, end: 'continue' }));
  }
  await recheckWaits(deps, timers, outcomes);
  for (const outcome of outcomes) {
    if (outcome.end !== 'call' && outcome.end !== 'continue') continue;
    followUps.add(() =>
      followUp(deps, run, timers, graphs, outcome).catch((error) => {
        // Left to its lease: a later run takes the execution up again.
        deps.log.error({ err: error, executionId: outcome.claimed.id }, 'workflow execution could not advance');
      }),
    );
  }
}

/**
 * What a run asks of the loop that started it: `kicks` counts the wake-ups received (an empty claim
 * that began before the latest one claims again: what woke the loop may have committed after the
 * claim read), `woken` resolves at the next one, `halted` is true once the process stops.
 */
export type RunSignals = { kicks: () => number; woken: () => Promise<void>; halted: () => boolean };

const NO_SIGNALS: RunSignals = { kicks: () => 0, woken: () => new Promise(() => {}), halted: () => false };

/**
 * One run of the engine: claims due executions in batches (FOR UPDATE SKIP LOCKED, so workers share
 * the work) and advances them, until nothing is due or `budgetMs` is spent. True when work was left.
 * A batch holds the oldest due executions of every project; on Citus, of one project, the projects
 * taken in turn, oldest first (src/jobs/project-rotation.ts).
 *
 * Beside the lanes, a start lane claims only new executions, START_BATCH at a time, so a new one
 * waits for a small batch of new ones and never behind a batch of resumptions (an UPDATE_CONTACT
 * or SEND_EMAIL walk of 200 takes seconds under load); between its batches it waits for a wake-up.
 * The lanes take the oldest of everything, so they take new executions too when the start lane
 * falls behind. It stops when the last lane has stopped.
 */
export async function runDue(deps: Deps, budgetMs: number, timers: Timers, signals: RunSignals = NO_SIGNALS): Promise<boolean> {
  const started = Date.now();
  const run = new RunContext(deps.db);
  // PGlite runs one transaction at a time: more lanes would only queue.
  const lanes = deps.db.kind === 'pglite' ? 1 : 4;
  const followUps = new FollowUps();
  let exhausted = false;
  const claim = { limit: BATCH, leaseSeconds: LEASE_SECONDS, claimedBy: deps.instance.id };
  const citus = deps.config.databaseDistribution === 'citus';
  const newRotation = (starts = false) => (citus ? new ProjectRotation(() => dueProjects(deps.db, SCAN, starts)) : undefined);
  let rotation = newRotation();
  const lane = async () => {
    while (!exhausted && !signals.halted() && Date.now() - started < budgetMs) {
      await followUps.drain(BATCH);
      const kicks = signals.kicks();
      const round = rotation;
      const batch = round ? await round.claim((projectId) => claimDue(deps.db, { ...claim, projectId })) : await claimDue(deps.db, claim);
      if (batch.length > 0) await processBatch(deps, run, timers, batch, followUps);
      else if (signals.kicks() === kicks) exhausted = true;
      // Woken meanwhile: claim again, on Citus from a fresh read of the projects (a rotation that came back empty reads no more).
      else if (round && rotation === round) rotation = newRotation();
    }
  };
  let lanesDone = false;
  const lanesEnd = Promise.all(Array.from({ length: lanes }, lane)).finally(() => (lanesDone = true));
  const startLane = async () => {
    const start = { ...claim, limit: START_BATCH, starts: true };
    let round = newRotation(true);
    // Until the last lane's batch is done, which may be slow, even past the budget: the run's
    // successor starts only after it.
    while (!lanesDone && !signals.halted()) {
      await followUps.drain(BATCH);
      const kicks = signals.kicks();
      const batch = round ? await round.claim((projectId) => claimDue(deps.db, { ...start, projectId })) : await claimDue(deps.db, start);
      if (batch.length > 0) {
        await processBatch(deps, run, timers, batch, followUps);
        continue;
      }
      if (signals.kicks() === kicks) await Promise.race([signals.woken(), lanesEnd]);
      // A rotation that came back empty reads no more.
      round = newRotation(true);
    }
  };
  await Promise.all([lanesEnd, startLane()]);
  await followUps.drain();
  return !exhausted;
}
