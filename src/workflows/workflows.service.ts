import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { checkEdgesStillValid, checkNewEdge, type GraphEdge, type GraphStep, spliceEdge } from './graph.ts';
import { parseStepConfig } from './step-configs.ts';
import { replaceLiveGraph } from './versions.queries.ts';
import { type Actor, afterGraphChange, beforeGraphChange, listVersions as listVersionsOf, newVersion, type VersionSummary, versionGraph } from './versions.ts';
import * as queries from './workflows.queries.ts';
import {
  type CreateStepInput,
  type CreateTransitionInput,
  type CreateWorkflowInput,
  type PatchStepInput,
  type PatchWorkflowInput,
  type Step,
  type StepRow,
  type Transition,
  type TransitionRow,
  toStep,
  toTransition,
  toWorkflow,
  type Workflow,
  type WorkflowRow,
} from './workflows.schemas.ts';

async function withGraph(db: Queryable, projectId: string, row: WorkflowRow): Promise<Workflow> {
  const [steps, transitions] = [await queries.findSteps(db, projectId, [row.id]), await queries.findTransitions(db, projectId, [row.id])];
  return toWorkflow(row, steps, transitions);
}

/** POST /workflows (docs/decisions/workflows.md): EVENT-triggered, disabled, with its TRIGGER step. */
export async function createWorkflow(deps: Pick<Deps, 'db'>, projectId: string, input: CreateWorkflowInput, actor: Actor): Promise<Workflow> {
  return deps.db.transaction(async (tx) => {
    const row = await queries.insertWorkflow(tx, projectId, {
      name: input.name,
      description: input.description ?? null,
      eventName: input.eventName,
      allowReentry: input.allowReentry ?? false,
    });
    // Version 1: the TRIGGER alone.
    await afterGraphChange(tx, projectId, row, actor);
    return withGraph(tx, projectId, row);
  });
}

export async function getWorkflow(deps: Pick<Deps, 'db'>, projectId: string, id: string): Promise<Workflow> {
  const row = await queries.findWorkflow(deps.db, projectId, id);
  if (!row) throw notFound('Workflow');
  return withGraph(deps.db, projectId, row);
}

/** GET /workflows: every workflow of the project with its graph, oldest first (three statements). */
export async function listWorkflows(deps: Pick<Deps, 'db'>, projectId: string): Promise<{ data: Workflow[] }> {
  const rows = await queries.listWorkflows(deps.db, projectId);
  const ids = rows.map((row) => row.id);
  const [steps, transitions] = [await queries.findSteps(deps.db, projectId, ids), await queries.findTransitions(deps.db, projectId, ids)];
  return {
    data: rows.map((row) =>
      toWorkflow(
        row,
        steps.filter((s) => s.workflow_id === row.id),
        transitions.filter((t) => t.workflow_id === row.id),
      ),
    ),
  };
}

/**
 * PATCH /workflows/{id}. triggerType EVENT needs an event name (given now or kept from before);
 * `enabled: false` stops new entries while running executions continue (docs/decisions/workflows.md).
 */
export async function patchWorkflow(deps: Pick<Deps, 'db'>, projectId: string, id: string, input: PatchWorkflowInput): Promise<Workflow> {
  return deps.db.transaction(async (tx) => {
    const current = await queries.findWorkflow(tx, projectId, id, { lock: 'edit' });
    if (!current) throw notFound('Workflow');
    const eventName = input.triggerConfig?.eventName;
    if ((input.triggerType ?? current.trigger_type) === 'EVENT' && !eventName && !current.event_name) {
      throw new AppError('VALIDATION_ERROR', {
        errors: [{ field: 'triggerConfig.eventName', code: 'invalid_type', message: 'An EVENT trigger needs an event name.', received: 'undefined' }],
      });
    }
    const row = await queries.updateWorkflow(tx, projectId, id, {
      name: input.name,
      description: input.description,
      triggerType: input.triggerType,
      eventName,
      enabled: input.enabled,
      allowReentry: input.allowReentry,
    });
    return withGraph(tx, projectId, row!);
  });
}

/** DELETE /workflows/{id}: 409 while executions are RUNNING or WAITING (docs/decisions/workflows.md). */
export async function deleteWorkflow(deps: Pick<Deps, 'db'>, projectId: string, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    // This lock also holds off triggers: a new execution's foreign key check waits for it.
    if (!(await queries.findWorkflow(tx, projectId, id, { lock: 'delete' }))) throw notFound('Workflow');
    const active = await queries.countActiveExecutions(tx, projectId, id);
    if (active > 0) throw new AppError('WORKFLOW_HAS_ACTIVE_EXECUTIONS', { details: { active } });
    await queries.deleteWorkflow(tx, projectId, id);
  });
}

// --- The graph: steps and transitions, changed under the workflow's row lock -------------------

type Graph = { workflow: WorkflowRow; steps: Map<string, GraphStep>; rows: StepRow[]; edges: GraphEdge[] };

const toEdge = (row: TransitionRow): GraphEdge => ({ id: row.id, fromStepId: row.from_step_id, toStepId: row.to_step_id, branch: row.branch });

/**
 * Locks the workflow and loads its graph, so concurrent edits cannot combine into a broken one;
 * every change then ends with afterGraphChange, which keeps the versions (docs/workflow-versions.md).
 */
async function lockGraph(tx: Queryable, projectId: string, workflowId: string): Promise<Graph> {
  const workflow = await queries.findWorkflow(tx, projectId, workflowId, { lock: 'edit' });
  if (!workflow) throw notFound('Workflow');
  await beforeGraphChange(tx, projectId, workflow);
  const rows = await queries.findSteps(tx, projectId, [workflowId]);
  const edges = (await queries.findTransitions(tx, projectId, [workflowId])).map(toEdge);
  return { workflow, rows, edges, steps: new Map(rows.map((row) => [row.id, { id: row.id, type: row.type, config: row.config }])) };
}

async function checkTemplate(tx: Queryable, projectId: string, type: string, config: Record<string, unknown>): Promise<void> {
  if (type !== 'SEND_EMAIL') return;
  if (!(await queries.templateExists(tx, projectId, String(config.templateId)))) throw notFound('Template');
}

/** POST /workflows/{id}/steps: a step of one of the seven types, its config checked for the type. */
export async function addStep(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string, input: CreateStepInput, actor: Actor): Promise<Step> {
  const config = parseStepConfig(input.type, input.config);
  return deps.db.transaction(async (tx) => {
    const graph = await lockGraph(tx, projectId, workflowId);
    await checkTemplate(tx, projectId, input.type, config);
    const row = await queries.insertStep(tx, projectId, workflowId, { type: input.type, name: input.name ?? null, config });
    graph.steps.set(row.id, { id: row.id, type: row.type, config: row.config });
    if (input.insertOn) {
      const split = graph.edges.find((edge) => edge.id === input.insertOn);
      if (!split) throw notFound('Transition');
      await queries.deleteTransition(tx, projectId, workflowId, split.id);
      const rest = graph.edges.filter((edge) => edge.id !== split.id);
      const into = { fromStepId: split.fromStepId, toStepId: row.id, branch: split.branch };
      // Out of the new step along its first outcome: yes of a CONDITION, event of a WAIT_FOR_EVENT.
      const out = { fromStepId: row.id, toStepId: split.toStepId, branch: input.type === 'CONDITION' ? 'yes' : null };
      checkNewEdge(graph.steps, rest, into);
      rest.push({ id: 'new', ...into });
      checkNewEdge(graph.steps, rest, out);
      await queries.insertTransition(tx, projectId, workflowId, into);
      await queries.insertTransition(tx, projectId, workflowId, out);
    } else if (input.after) {
      const edge = { fromStepId: input.after.stepId, toStepId: row.id, branch: input.after.branch ?? null };
      checkNewEdge(graph.steps, graph.edges, edge);
      await queries.insertTransition(tx, projectId, workflowId, edge);
    }
    await queries.touchWorkflow(tx, projectId, workflowId);
    await afterGraphChange(tx, projectId, graph.workflow, actor);
    return toStep(row);
  });
}

/** PATCH …/steps/{stepId}: name and config; the type is fixed. */
export async function patchStep(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string, stepId: string, input: PatchStepInput, actor: Actor): Promise<Step> {
  return deps.db.transaction(async (tx) => {
    const graph = await lockGraph(tx, projectId, workflowId);
    const step = graph.steps.get(stepId);
    if (!step) throw notFound('Step');
    let config: Record<string, unknown> | undefined;
    if (input.config !== undefined) {
      if (step.type === 'TRIGGER') throw badRequest('The TRIGGER step has no config; change the trigger with PATCH /workflows/{id}.');
      config = parseStepConfig(step.type, input.config);
      await checkTemplate(tx, projectId, step.type, config);
      checkEdgesStillValid({ ...step, config }, graph.edges);
    }
    const row = await queries.updateStep(tx, projectId, stepId, { name: input.name, config });
    await queries.touchWorkflow(tx, projectId, workflowId);
    await afterGraphChange(tx, projectId, graph.workflow, actor);
    return toStep(row!);
  });
}

/**
 * DELETE …/steps/{stepId}[?splice=true]. The TRIGGER cannot go. Its transitions go with it; with
 * splice, its single predecessor is joined to its single successor (keeping the branch).
 * Executions standing on a deleted step fail when they next run (docs/decisions/workflows.md).
 */
export async function deleteStep(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string, stepId: string, splice: boolean, actor: Actor): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const graph = await lockGraph(tx, projectId, workflowId);
    const step = graph.steps.get(stepId);
    if (!step) throw notFound('Step');
    if (step.type === 'TRIGGER') throw badRequest('The TRIGGER step is the entry point of the workflow and cannot be deleted.');
    const join = splice ? spliceEdge(stepId, graph.edges) : null;
    await queries.deleteStep(tx, projectId, stepId);
    if (join) await queries.insertTransition(tx, projectId, workflowId, join);
    await queries.touchWorkflow(tx, projectId, workflowId);
    await afterGraphChange(tx, projectId, graph.workflow, actor);
  });
}

/** POST …/transitions: refused with 400 when it breaks a graph rule (graph.ts). */
export async function addTransition(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string, input: CreateTransitionInput, actor: Actor): Promise<Transition> {
  return deps.db.transaction(async (tx) => {
    const graph = await lockGraph(tx, projectId, workflowId);
    const edge = { fromStepId: input.fromStepId, toStepId: input.toStepId, branch: input.branch ?? null };
    checkNewEdge(graph.steps, graph.edges, edge);
    const row = await queries.insertTransition(tx, projectId, workflowId, edge);
    await queries.touchWorkflow(tx, projectId, workflowId);
    await afterGraphChange(tx, projectId, graph.workflow, actor);
    return toTransition(row);
  });
}

export async function deleteTransition(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string, transitionId: string, actor: Actor): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const graph = await lockGraph(tx, projectId, workflowId);
    if (!(await queries.deleteTransition(tx, projectId, workflowId, transitionId))) throw notFound('Transition');
    await queries.touchWorkflow(tx, projectId, workflowId);
    await afterGraphChange(tx, projectId, graph.workflow, actor);
  });
}

// --- Versions (docs/workflow-versions.md) -------------------------------------------------------

/** GET /workflows/{id}/versions. */
export async function listVersions(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string): Promise<{ data: VersionSummary[] }> {
  const workflow = await queries.findWorkflow(deps.db, projectId, workflowId);
  if (!workflow) throw notFound('Workflow');
  return listVersionsOf(deps, projectId, workflow);
}

/**
 * POST /workflows/{id}/versions/{version}/restore: the old graph becomes the live graph and a new
 * version; executions of every version go on, each on its own.
 */
export async function restoreVersion(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string, version: number, actor: Actor): Promise<Workflow> {
  return deps.db.transaction(async (tx) => {
    const { workflow } = await lockGraph(tx, projectId, workflowId);
    const old = await versionGraph(tx, projectId, workflowId, version);
    await replaceLiveGraph(tx, projectId, workflowId, old.steps, old.transitions);
    await newVersion(tx, projectId, workflow, actor);
    return withGraph(tx, projectId, (await queries.findWorkflow(tx, projectId, workflowId))!);
  });
}
