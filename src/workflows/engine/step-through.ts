import { AppError } from '../../errors.ts';
import type { StepRow } from '../workflows.schemas.ts';
import type { ExecutionState, StepRecordWrite } from './engine.queries.ts';
import type { StepEnv } from './step-env.ts';
import { resumeWait, runStep, StepFailure, type StepResult, webhookResult } from './steps.ts';
import type { WebhookRequest, WebhookResponse } from './webhook.ts';

/** Steps one execution may run in one transaction before it commits (keeps transactions short). */
const STEPS_PER_TRANSACTION = 20;
/**
 * A WEBHOOK whose call started this many times without an answer (its worker died during each) is
 * not tried again: the guard against a call that itself kills the worker. Only calls that started
 * count, so a crash loop of a few restarts delays executions without failing them.
 */
const MAX_WEBHOOK_ATTEMPTS = 10;

/** The answer of a WEBHOOK call made between two transactions. */
export type CallOutcome = { stepId: string; response?: WebhookResponse; error?: string };

export type Walk = {
  records: StepRecordWrite[];
  state: ExecutionState;
  /** A WEBHOOK to call once the transaction commits. */
  calling?: { step: StepRow; request: WebhookRequest };
};

/**
 * The time with microseconds (PostgreSQL keeps them): steps run in one transaction within the same
 * millisecond, and their records are listed in the order they ran.
 */
function now(): string {
  const t = performance.timeOrigin + performance.now();
  const ms = Math.floor(t);
  return new Date(ms).toISOString().replace('Z', `${String(Math.floor((t - ms) * 1000)).padStart(3, '0')}Z`);
}

/**
 * Walks one locked execution along its transitions inside the caller's transaction, until a step
 * waits, calls out, ends the execution, or `alone` (one step per transaction) allows no more.
 * Returns the step records and the execution's new state for the caller to save. A step that fails
 * for a known reason (StepFailure, AppError: a missing template, an unverified sender, a render
 * error, a webhook's non-2xx) is recorded and ends the execution FAILED; anything else is thrown,
 * and the caller rolls the transaction back.
 */
export async function stepThrough(env: StepEnv, options: { alone: boolean; call?: CallOutcome }): Promise<Walk> {
  const { exec, graph } = env;
  const records: StepRecordWrite[] = [];
  env.deps.metrics.workflowStepping(exec);
  const state: ExecutionState = {
    status: exec.status,
    currentStepId: exec.current_step_id,
    waitSeconds: null,
    waitEventName: null,
    waitBegins: false,
    exitReason: null,
    error: null,
  };
  for (let count = 0; ; count++) {
    const step = state.currentStepId ? graph.steps.get(state.currentStepId) : undefined;
    if (!step) {
      Object.assign(state, { status: 'FAILED', error: `Step ${state.currentStepId} no longer exists in the workflow.` });
      return { records, state };
    }
    const startedAt = now();
    let result: StepResult;
    try {
      if (options.call?.stepId === step.id) {
        if (options.call.error) throw new StepFailure(options.call.error);
        result = webhookResult(options.call.response!);
      } else if (state.status === 'WAITING') result = resumeWait(exec, step);
      else if (step.type === 'WEBHOOK' && step.id === exec.current_step_id && (exec.current_attempts ?? 0) >= MAX_WEBHOOK_ATTEMPTS) {
        throw new StepFailure(`The call was interrupted ${exec.current_attempts} times; not trying again.`);
      } else result = await runStep(env, step);
    } catch (error) {
      if (!(error instanceof StepFailure || error instanceof AppError)) throw error;
      const output = error instanceof StepFailure ? error.output : null;
      records.push({ step_id: step.id, step_type: step.type, status: 'FAILED', output, error: error.message, started_at: startedAt, completed_at: now() });
      Object.assign(state, { status: 'FAILED', currentStepId: step.id, error: `${step.type} step failed: ${error.message}` });
      return { records, state };
    }
    if (result.kind === 'call') {
      // Its RUNNING record commits before the call, and the call counts as an attempt just before the
      // request leaves (runner.ts startCall): a crash during the call is then seen as an interrupted
      // call, tried again with the same Idempotency-Key (WEBHOOK is the retry-safe step).
      records.push({ step_id: step.id, step_type: step.type, status: 'RUNNING', output: null, error: null, started_at: startedAt, completed_at: null });
      Object.assign(state, { status: 'RUNNING', currentStepId: step.id });
      return { records, state, calling: { step, request: result.request } };
    }
    if (result.kind === 'wait') {
      records.push({ step_id: step.id, step_type: step.type, status: 'WAITING', output: result.output, error: null, started_at: startedAt, completed_at: null });
      Object.assign(state, { status: 'WAITING', currentStepId: step.id, waitSeconds: result.seconds, waitEventName: result.eventName, waitBegins: true });
      return { records, state };
    }
    records.push({ step_id: step.id, step_type: step.type, status: 'COMPLETED', output: result.output, error: null, started_at: startedAt, completed_at: now() });
    if (result.kind === 'exit') {
      Object.assign(state, { status: 'EXITED', currentStepId: step.id, exitReason: result.reason });
      return { records, state };
    }
    const next = graph.next(step.id, result.outcome);
    // docs/decisions/workflows.md: a step with no outgoing edge (for this outcome) completes the execution.
    if (!next) {
      Object.assign(state, { status: 'COMPLETED', currentStepId: step.id });
      return { records, state };
    }
    Object.assign(state, { status: 'RUNNING', currentStepId: next });
    if (options.alone || count + 1 >= STEPS_PER_TRANSACTION) return { records, state };
  }
}
