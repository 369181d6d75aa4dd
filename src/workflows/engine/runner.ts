import type { Queryable } from '../../db/index.ts';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../http/errors.ts';
import type { StepRow } from '../workflows.schemas.ts';
import { type Claimed, claimDue, type ExecutionState, lockClaimed, resumeFromStoredEvents, saveProgress, type StepRecordWrite } from './engine.queries.ts';
import { RunContext, type WorkflowGraph } from './run-context.ts';
import { resumeWait, runStep, StepFailure, type StepResult, webhookResult } from './steps.ts';
import { callWebhook, type WebhookRequest, type WebhookResponse } from './webhook.ts';

/** How long a claim holds before another worker may take the execution over (renewed at each transaction). */
export const LEASE_SECONDS = 30;
/** Steps one transaction may run before it commits and opens the next (keeps transactions short). */
const STEPS_PER_TRANSACTION = 20;
/** A WEBHOOK interrupted this many times (its worker died during the call) is not tried again. */
const MAX_WEBHOOK_ATTEMPTS = 5;

/** How the engine asks for a later run: at a timer (inside the step transaction), or now. */
export type Timers = { wake: (seconds: number, tx: Queryable) => Promise<void>; kick: () => Promise<void> };

type Chunk = { end: 'lost' | 'finished' | 'continue' } | { end: 'waiting'; awaitsEvent: boolean } | { end: 'call'; step: StepRow; request: WebhookRequest };

type CallOutcome = { stepId: string; response?: WebhookResponse; error?: string };

const now = () => new Date().toISOString();

/**
 * One step transaction (docs/decisions/workflows.md): lock the execution if the claim is still
 * ours, run steps along the transitions until one waits, calls out, ends the execution or
 * `alone` allows no more, then write their records and the execution's new state in one
 * statement. Effects of the steps go through the same transaction, so a step happens exactly
 * when its record commits. An unexpected error rolls everything back: the caller then replays
 * the steps one per transaction to pin the failure on the step that causes it.
 */
async function runChunk(deps: Deps, run: RunContext, graph: WorkflowGraph, claimed: Claimed, timers: Timers, alone: boolean, call?: CallOutcome): Promise<Chunk> {
  return deps.db.transaction(async (tx) => {
    const exec = await lockClaimed(tx, claimed, LEASE_SECONDS);
    if (!exec) return { end: 'lost' as const };
    const records: StepRecordWrite[] = [];
    const state: ExecutionState = { status: exec.status, currentStepId: exec.current_step_id, waitSeconds: null, waitEventName: null, waitBegins: false, exitReason: null, error: null };
    let calling: { step: StepRow; request: WebhookRequest } | undefined;
    for (let count = 0; ; count++) {
      const step = state.currentStepId ? graph.steps.get(state.currentStepId) : undefined;
      if (!step) {
        Object.assign(state, { status: 'FAILED', error: `Step ${state.currentStepId} no longer exists in the workflow.` });
        break;
      }
      const startedAt = now();
      let result: StepResult;
      try {
        if (call && step.id === call.stepId) {
          if (call.error) throw new StepFailure(call.error);
          result = webhookResult(call.response!);
        } else if (state.status === 'WAITING') result = resumeWait(exec, step);
        else if (step.type === 'WEBHOOK' && (exec.current_attempts ?? 0) >= MAX_WEBHOOK_ATTEMPTS) {
          throw new StepFailure(`The call was interrupted ${exec.current_attempts} times; not trying again.`);
        } else result = await runStep({ deps, tx, run, exec, graph }, step);
      } catch (error) {
        if (!(error instanceof StepFailure || error instanceof AppError)) throw error;
        const output = error instanceof StepFailure ? error.output : null;
        records.push({ step_id: step.id, step_type: step.type, status: 'FAILED', output, error: error.message, started_at: startedAt, completed_at: now() });
        Object.assign(state, { status: 'FAILED', error: `${step.type} step failed: ${error.message}` });
        break;
      }
      if (result.kind === 'call') {
        records.push({ step_id: step.id, step_type: step.type, status: 'RUNNING', output: null, error: null, started_at: startedAt, completed_at: null });
        Object.assign(state, { status: 'RUNNING', currentStepId: step.id });
        calling = { step, request: result.request };
        break;
      }
      if (result.kind === 'wait') {
        records.push({ step_id: step.id, step_type: step.type, status: 'WAITING', output: result.output, error: null, started_at: startedAt, completed_at: null });
        Object.assign(state, { status: 'WAITING', currentStepId: step.id, waitSeconds: result.seconds, waitEventName: result.eventName, waitBegins: true });
        break;
      }
      records.push({ step_id: step.id, step_type: step.type, status: 'COMPLETED', output: result.output, error: null, started_at: startedAt, completed_at: now() });
      if (result.kind === 'exit') {
        Object.assign(state, { status: 'EXITED', exitReason: result.reason });
        break;
      }
      const next = graph.next(step.id, result.outcome);
      // contract §11: a step with no outgoing edge (for this outcome) completes the execution.
      if (!next) {
        state.status = 'COMPLETED';
        break;
      }
      Object.assign(state, { status: 'RUNNING', currentStepId: next });
      if (alone || count + 1 >= STEPS_PER_TRANSACTION) break;
    }
    await saveProgress(tx, claimed, records, state);
    if (state.status === 'WAITING' && state.waitSeconds !== null) await timers.wake(state.waitSeconds, tx);
    if (calling) return { end: 'call' as const, ...calling };
    if (state.status === 'WAITING') return { end: 'waiting' as const, awaitsEvent: state.waitEventName !== null };
    return { end: state.status === 'RUNNING' ? ('continue' as const) : ('finished' as const) };
  });
}

/** Records an unexpected error against the step the execution stands on (after a replay pinned it). */
async function failCurrentStep(deps: Deps, claimed: Claimed, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await deps.db.transaction(async (tx) => {
    const exec = await lockClaimed(tx, claimed, LEASE_SECONDS);
    if (!exec) return;
    const stepId = exec.current_step_id;
    const records: StepRecordWrite[] = stepId ? [{ step_id: stepId, step_type: 'UNKNOWN', status: 'FAILED', output: null, error: message, started_at: now(), completed_at: now() }] : [];
    await saveProgress(tx, claimed, records, { status: 'FAILED', currentStepId: stepId, waitSeconds: null, waitEventName: null, waitBegins: false, exitReason: null, error: `Step failed: ${message}` });
  });
}

/**
 * Drives one claimed execution as far as it goes now: step transactions in a row, WEBHOOK calls
 * between them (never inside one), until it waits, ends, or the claim is lost.
 */
export async function advance(deps: Deps, run: RunContext, claimed: Claimed, timers: Timers): Promise<void> {
  const graph = await run.graph(claimed.project_id, claimed.workflow_id);
  if (!graph) return; // the workflow is gone, and its executions with it
  let alone = false;
  let call: CallOutcome | undefined;
  for (;;) {
    let chunk: Chunk;
    try {
      chunk = await runChunk(deps, run, graph, claimed, timers, alone, call);
    } catch (error) {
      if (!alone) {
        alone = true;
        continue;
      }
      deps.log.warn({ err: error, executionId: claimed.id }, 'workflow step failed unexpectedly');
      return failCurrentStep(deps, claimed, error);
    }
    call = undefined;
    if (chunk.end === 'call') {
      // Outside any transaction: its RUNNING record is committed, so a crash now is seen as an
      // interrupted call, which is tried again (WEBHOOK is the retry-safe step; Idempotency-Key).
      try {
        call = { stepId: chunk.step.id, response: await callWebhook(chunk.request, { allowPrivate: deps.config.webhookAllowPrivate }) };
      } catch (error) {
        call = { stepId: chunk.step.id, error: (error as Error).message };
      }
      continue;
    }
    if (chunk.end === 'waiting' && chunk.awaitsEvent) {
      // An event tracked while the wait's transaction was open was dispatched before the wait was
      // visible: look once more now that it is. A hit makes it due again.
      if (await resumeFromStoredEvents(deps.db, { projectId: claimed.project_id, id: claimed.id })) await timers.kick();
      return;
    }
    if (chunk.end !== 'continue') return;
  }
}

/**
 * One run of the engine: claims due executions in small batches and advances them on several lanes
 * (WEBHOOK calls overlap), until nothing is due or `budgetMs` is spent. True when work was left.
 */
export async function runDue(deps: Deps, budgetMs: number, timers: Timers): Promise<boolean> {
  const started = Date.now();
  const run = new RunContext(deps.db);
  const lanes = deps.db.kind === 'pglite' ? 4 : 8;
  const queue: Claimed[] = [];
  let claiming: Promise<void> | undefined;
  let exhausted = false;
  const next = async (): Promise<Claimed | undefined> => {
    for (;;) {
      if (queue.length) return queue.shift();
      if (exhausted || Date.now() - started > budgetMs) return undefined;
      claiming ??= claimDue(deps.db, lanes * 2, LEASE_SECONDS)
        .then((rows) => {
          queue.push(...rows);
          if (rows.length === 0) exhausted = true;
        })
        .finally(() => (claiming = undefined));
      await claiming;
    }
  };
  const lane = async () => {
    for (let claimed = await next(); claimed; claimed = await next()) {
      try {
        await advance(deps, run, claimed, timers);
      } catch (error) {
        // Left to its lease: the next run after it ends takes the execution up again.
        deps.log.error({ err: error, executionId: claimed.id }, 'workflow execution could not advance');
      }
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return !exhausted;
}
