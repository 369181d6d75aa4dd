import { randomUUID } from 'node:crypto';
import { splitContactData } from '../../contacts/data-rules.ts';
import type { Deps } from '../../deps.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Outcome } from '../graph.ts';
import type { ConditionConfig, DelayConfig, UpdateContactConfig, WaitForEventConfig } from '../step-configs.ts';
import { findWorkflow } from '../workflows.queries.ts';
import type { SimulateInput, Simulation } from '../workflows.schemas.ts';
import { readField } from './condition.ts';
import { type LockedExecution, readContact } from './engine.queries.ts';
import { loadGraph, RunContext } from './run-context.ts';
import type { Effects } from './step-env.ts';
import { runStep, StepFailure } from './steps.ts';

type PathEntry = Simulation['path'][number];

const show = (value: unknown) => (value === undefined ? 'no value' : JSON.stringify(value));

/**
 * POST /workflows/{id}/simulate (docs/workflow-versions.md): the walk a new execution for the
 * contact would take now on the newest version, with the engine's own step code (runStep) deciding
 * each step. Nothing is written: the email a SEND_EMAIL builds is dropped, a WEBHOOK's request is
 * shown and not sent, an UPDATE_CONTACT changes only the contact held in memory (later steps see
 * it), and DELAY and WAIT_FOR_EVENT are taken as elapsed (a WAIT follows `event` when the given
 * event has its name, else `timeout`; without a timeout it stays WAITING).
 */
export async function simulate(deps: Deps, projectId: string, workflowId: string, input: SimulateInput): Promise<Simulation> {
  const workflow = await findWorkflow(deps.db, projectId, workflowId);
  if (!workflow) throw notFound('Workflow');
  const contact = await readContact(deps.db, projectId, input.contactId);
  if (!contact) throw notFound('Contact');
  const graph = (await loadGraph(deps.db, projectId, workflowId, workflow.version))!;
  const now = new Date().toISOString();
  const exec: LockedExecution = {
    ...contact,
    project_id: projectId,
    id: randomUUID(),
    workflow_id: workflowId,
    workflow_version: workflow.version,
    contact_id: input.contactId,
    status: 'RUNNING',
    current_step_id: null,
    context: {},
    event_id: input.event ? randomUUID() : null,
    event_name: input.event?.name ?? null,
    event_data: input.event ? (input.event.data ?? {}) : null,
    exit_reason: null,
    error: null,
    due_at: now,
    claim: null,
    wait_event_name: null,
    wait_started_at: null,
    resume_event_id: null,
    started_at: now,
    updated_at: now,
    completed_at: null,
    current_attempts: null,
  };
  const effects: Effects = { emails: [], caps: new Map() };
  // A dry run writes no contact: UPDATE_CONTACT is simulated below, never run.
  const writeContact = () => Promise.reject(new Error('A simulation writes no contact.'));
  const env = { deps, tx: deps.db, run: new RunContext(deps.db), exec, graph, effects, writeContact };
  const path: PathEntry[] = [];
  const done = (result: Simulation['result']): Simulation => ({ version: workflow.version, path, result });
  let step = [...graph.steps.values()].find((s) => s.type === 'TRIGGER');
  while (step) {
    let outcome: Outcome = 'next';
    let detail: string;
    try {
      if (step.type === 'UPDATE_CONTACT') {
        const config = step.config as UpdateContactConfig;
        const data = splitContactData(config.data, { oneOffAllowed: false });
        exec.contact_data = { ...exec.contact_data, ...data.set };
        for (const key of data.unset) delete exec.contact_data[key];
        if (config.subscribed !== undefined) exec.contact_subscribed = config.subscribed;
        const parts = [...Object.keys(data.set).map((k) => `sets ${k}`), ...data.unset.map((k) => `clears ${k}`)];
        if (config.subscribed !== undefined) parts.push(config.subscribed ? 'subscribes' : 'unsubscribes');
        detail = `Would update the contact: ${parts.join(', ') || 'nothing'}.`;
      } else {
        const result = await runStep(env, step);
        if (result.kind === 'exit') {
          path.push({ stepId: step.id, type: step.type, outcome: 'exit', detail: `Exits${result.reason ? `: ${result.reason}` : '.'}` });
          return done('EXITED');
        }
        if (result.kind === 'call') detail = `Would call ${result.request.method} ${result.request.url}.`;
        else if (result.kind === 'wait' && step.type === 'DELAY') {
          const config = step.config as DelayConfig;
          detail = `Waits ${config.amount} ${config.unit} (taken as elapsed).`;
        } else if (result.kind === 'wait') {
          const config = step.config as WaitForEventConfig;
          if (input.event?.name === config.eventName) {
            outcome = 'event';
            detail = `Waits for ${config.eventName}: the given event matches.`;
          } else if (config.timeoutSeconds !== undefined) {
            outcome = 'timeout';
            detail = `Waits for ${config.eventName}; no such event given, so the ${config.timeoutSeconds} s timeout passes.`;
          } else {
            path.push({ stepId: step.id, type: step.type, outcome: 'wait', detail: `Waits for ${config.eventName}, with no timeout.` });
            return done('WAITING');
          }
        } else if (result.kind === 'next' && step.type === 'CONDITION') {
          const config = step.config as ConditionConfig;
          const actual = readField(
            { contact: { email: exec.contact_email, subscribed: exec.contact_subscribed, data: exec.contact_data }, event: exec.event_data ?? {}, context: exec.context },
            config.field,
          );
          outcome = result.outcome;
          const expected = config.value === undefined ? '' : ` ${show(config.value)}`;
          detail = `${config.field} is ${show(actual)}; "${config.operator}${expected}" is ${outcome === 'yes' ? 'true' : 'false'}, so ${outcome}.`;
        } else if (result.kind === 'next' && step.type === 'SEND_EMAIL') {
          const email = effects.emails.pop()!;
          detail =
            email.record.status === 'SUPPRESSED'
              ? `Would not send to ${email.record.to_address} (suppressed or unsubscribed): "${email.record.subject}".`
              : `Would send "${email.record.subject}" to ${email.record.to_address}.`;
        } else {
          outcome = result.kind === 'next' ? result.outcome : 'next';
          detail = step.type === 'TRIGGER' ? (input.event ? `Starts on ${input.event.name}.` : 'Starts.') : 'Goes on.';
        }
      }
    } catch (error) {
      if (!(error instanceof StepFailure || error instanceof AppError)) throw error;
      path.push({ stepId: step.id, type: step.type, outcome: 'fail', detail: `Would fail: ${error.message}` });
      return done('FAILED');
    }
    const next = graph.next(step.id, outcome);
    path.push({ stepId: step.id, type: step.type, outcome: next ? outcome : 'end', detail });
    step = next ? graph.steps.get(next) : undefined;
  }
  return done('COMPLETED');
}
