import { splitContactData } from '../../contacts/data-rules.ts';
import { compile, LIMITS, renderCompiled } from '../../rendering/engine.ts';
import { recipientVariables } from '../../rendering/render.ts';
import type { Outcome } from '../graph.ts';
import {
  type ConditionConfig,
  type DelayConfig,
  delaySeconds,
  type ExitConfig,
  type SendEmailConfig,
  type UpdateContactConfig,
  type WaitForEventConfig,
  type WebhookConfig,
} from '../step-configs.ts';
import type { StepRow } from '../workflows.schemas.ts';
import { evaluateCondition } from './condition.ts';
import type { LockedExecution } from './engine.queries.ts';
import { type WorkflowGraph, workflowVariables } from './run-context.ts';
import { sendEmail } from './send-email.ts';
import type { StepEnv } from './step-env.ts';
import type { WebhookRequest, WebhookResponse } from './webhook.ts';

/** What running (or resuming) a step decided. */
export type StepResult =
  | { kind: 'next'; outcome: Outcome; output: unknown }
  | { kind: 'wait'; output: unknown; seconds: number | null; eventName: string | null }
  | { kind: 'exit'; reason: string | null; output: unknown }
  /** A WEBHOOK: its call happens outside any transaction, after its RUNNING record commits. */
  | { kind: 'call'; request: WebhookRequest };

/** A step that failed for a reason worth recording (the execution ends FAILED with it). */
export class StepFailure extends Error {
  override name = 'StepFailure';
  constructor(
    message: string,
    readonly output: unknown = null,
  ) {
    super(message);
  }
}

/**
 * Runs one step inside the step transaction. Every effect goes through `tx`, so it exists exactly
 * when the step's record and the execution's move commit (docs/decisions/workflows.md).
 */
export async function runStep(env: StepEnv, step: StepRow): Promise<StepResult> {
  const { exec } = env;
  switch (step.type) {
    case 'TRIGGER':
      return { kind: 'next', outcome: 'next', output: null };
    case 'CONDITION': {
      const subject = { contact: { email: exec.contact_email, subscribed: exec.contact_subscribed, data: exec.contact_data }, event: exec.event_data ?? {}, context: exec.context };
      const result = evaluateCondition(step.config as ConditionConfig, subject);
      return { kind: 'next', outcome: result ? 'yes' : 'no', output: { result } };
    }
    case 'DELAY': {
      const seconds = delaySeconds(step.config as DelayConfig);
      return { kind: 'wait', seconds, eventName: null, output: { until: new Date(Date.now() + seconds * 1000).toISOString() } };
    }
    case 'WAIT_FOR_EVENT': {
      const config = step.config as WaitForEventConfig;
      return { kind: 'wait', seconds: config.timeoutSeconds ?? null, eventName: config.eventName, output: null };
    }
    case 'UPDATE_CONTACT':
      return { kind: 'next', outcome: 'next', output: await updateContactStep(env, step.config as UpdateContactConfig) };
    case 'SEND_EMAIL':
      return { kind: 'next', outcome: 'next', output: await sendEmail(env, step.config as SendEmailConfig) };
    case 'WEBHOOK':
      return { kind: 'call', request: webhookRequest(exec, env.graph, step) };
    case 'EXIT': {
      const reason = (step.config as ExitConfig).reason ?? null;
      return { kind: 'exit', reason, output: { reason } };
    }
  }
}

/** A DELAY or WAIT_FOR_EVENT whose time came, or whose event arrived. */
export function resumeWait(exec: LockedExecution, step: StepRow): StepResult {
  if (step.type === 'WAIT_FOR_EVENT') {
    if (exec.resume_event_id) return { kind: 'next', outcome: 'event', output: { resumedBy: 'event', eventId: exec.resume_event_id } };
    return { kind: 'next', outcome: 'timeout', output: { resumedBy: 'timeout' } };
  }
  return { kind: 'next', outcome: 'next', output: { resumedBy: 'timer' } };
}

/**
 * UPDATE_CONTACT through the data write rules (the API reference), the subscription event emitted
 * on change; written in one statement with the batch's other contact writes (walk-batch.ts).
 */
async function updateContactStep(env: StepEnv, config: UpdateContactConfig) {
  const { exec } = env;
  const data = splitContactData(config.data, { oneOffAllowed: false });
  const written = await env.writeContact({ projectId: exec.project_id, id: exec.contact_id, subscribed: config.subscribed ?? null, data });
  if (!written) throw new StepFailure('The contact no longer exists.');
  // Later steps of this execution see the contact as it is now.
  exec.contact_subscribed = written.subscribed;
  exec.contact_data = written.data;
  return { subscribed: written.subscribed, set: Object.keys(data.set), unset: data.unset };
}

const renderPlain = (source: string, variables: Record<string, unknown>, field: string) => renderCompiled(compile(source, 'plain', field), variables, LIMITS.subjectChars, field);

/**
 * The request of a WEBHOOK step (docs/decisions/workflows.md): url, header values and body rendered with the
 * contact's and the workflow's variables; the default body describes contact, workflow, execution
 * and event. The Idempotency-Key is the same on every try, so a receiver can drop a repeat.
 */
export function webhookRequest(exec: LockedExecution, graph: WorkflowGraph, step: StepRow): WebhookRequest {
  const config = step.config as WebhookConfig;
  const variables = recipientVariables({ id: exec.contact_id, email: exec.contact_email, data: exec.contact_data }, {}, workflowVariables(exec, graph));
  const url = renderPlain(config.url, variables, 'config.url');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(config.headers ?? {})) {
    const rendered = renderPlain(value, variables, `config.headers.${name}`);
    if (/[\r\n]/.test(rendered)) throw new StepFailure(`Header ${name} rendered with a line break.`);
    headers[name] = rendered;
  }
  headers['idempotency-key'] = `${exec.id}:${step.id}`;
  const method = config.method ?? 'POST';
  let body: string | undefined;
  if (method !== 'GET') {
    if (typeof config.body === 'string') body = renderPlain(config.body, variables, 'config.body');
    else {
      const value = config.body === undefined ? defaultBody(exec, graph) : renderValues(config.body, variables, 'config.body');
      body = JSON.stringify(value);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
  }
  try {
    new URL(url);
  } catch {
    throw new StepFailure(`The URL rendered to ${JSON.stringify(url.slice(0, 200))}, which is not a URL.`);
  }
  return { url, method, headers, body };
}

function renderValues(value: unknown, variables: Record<string, unknown>, path: string): unknown {
  if (typeof value === 'string') return renderPlain(value, variables, path);
  if (Array.isArray(value)) return value.map((item, i) => renderValues(item, variables, `${path}.${i}`));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderValues(item, variables, `${path}.${key}`)]));
  return value;
}

function defaultBody(exec: LockedExecution, graph: WorkflowGraph) {
  return {
    contact: { id: exec.contact_id, email: exec.contact_email, subscribed: exec.contact_subscribed, data: exec.contact_data },
    workflow: { id: graph.id, name: graph.name },
    execution: { id: exec.id, context: exec.context, startedAt: new Date(exec.started_at).toISOString() },
    event: exec.event_id ? { id: exec.event_id, name: exec.event_name, data: exec.event_data ?? {} } : null,
  };
}

/** The recorded answer of a webhook call: 2xx goes on, anything else fails the step (docs/decisions/workflows.md). */
export function webhookResult(response: WebhookResponse): StepResult {
  const output = { status: response.status, body: response.body, url: response.url, redirects: response.redirects };
  if (response.status < 200 || response.status > 299) throw new StepFailure(`The webhook answered ${response.status}.`, output);
  return { kind: 'next', outcome: 'next', output };
}
