import type { Db, Queryable } from '../../db/index.ts';
import { signingKeyFor } from '../../domains/domains.service.ts';
import type { Template } from '../../templates/templates.schemas.ts';
import { getTemplateForSend } from '../../templates/templates.service.ts';
import type { Outcome } from '../graph.ts';
import { findVersion } from '../versions.queries.ts';
import { findSteps, findTransitions, findWorkflow } from '../workflows.queries.ts';
import type { StepRow, TransitionRow } from '../workflows.schemas.ts';
import type { LockedExecution } from './engine.queries.ts';

/** A workflow as the engine walks it: its steps, and where each outcome of a step leads. */
export type WorkflowGraph = {
  projectId: string;
  id: string;
  name: string;
  steps: Map<string, StepRow>;
  next: (stepId: string, outcome: Outcome) => string | undefined;
};

function edgeOutcome(from: StepRow | undefined, branch: string | null): Outcome {
  if (from?.type === 'CONDITION') return branch === 'no' ? 'no' : 'yes';
  if (from?.type === 'WAIT_FOR_EVENT') return branch === 'timeout' ? 'timeout' : 'event';
  return 'next';
}

/** A graph from its steps and transitions (the live tables', or a stored version's). */
export function buildGraph(workflow: { projectId: string; id: string; name: string }, stepRows: StepRow[], transitions: TransitionRow[]): WorkflowGraph {
  const steps = new Map(stepRows.map((row) => [row.id, row]));
  const edges = new Map<string, string>();
  for (const t of transitions) edges.set(`${t.from_step_id}:${edgeOutcome(steps.get(t.from_step_id), t.branch)}`, t.to_step_id);
  return { ...workflow, steps, next: (stepId, outcome) => edges.get(`${stepId}:${outcome}`) };
}

/**
 * The graph of one version of a workflow (docs/workflow-versions.md). A version without a stored
 * row is the newest of a workflow made before versions existed and unchanged since: the live graph.
 */
export async function loadGraph(db: Queryable, projectId: string, workflowId: string, version: number): Promise<WorkflowGraph | undefined> {
  const workflow = await findWorkflow(db, projectId, workflowId);
  if (!workflow) return undefined;
  const meta = { projectId, id: workflowId, name: workflow.name };
  const stored = await findVersion(db, projectId, workflowId, version);
  if (stored) {
    const steps: StepRow[] = stored.steps.map((s) => ({ id: s.id, workflow_id: workflowId, type: s.type, name: s.name, config: s.config, created_at: s.createdAt }));
    const transitions: TransitionRow[] = stored.transitions.map((t) => ({
      id: t.id,
      workflow_id: workflowId,
      from_step_id: t.fromStepId,
      to_step_id: t.toStepId,
      branch: t.branch,
    }));
    return buildGraph(meta, steps, transitions);
  }
  return buildGraph(meta, await findSteps(db, projectId, [workflowId]), await findTransitions(db, projectId, [workflowId]));
}

type SigningKey = NonNullable<Awaited<ReturnType<typeof signingKeyFor>>>;

/**
 * What one run of the engine reads again and again, read once: workflow graphs, templates and
 * signing keys. A version's graph never changes once an execution started on it; a draft
 * version (a disabled workflow nobody ran) may, and a run lasts at most RUN_BUDGET_MS, so an edit
 * made meanwhile is seen by the next run. Loaders that run inside a step transaction take its handle (PGlite has one connection).
 */
export class RunContext {
  private readonly graphs = new Map<string, Promise<WorkflowGraph | undefined>>();
  private readonly templates = new Map<string, Template>();
  private readonly keys = new Map<string, SigningKey | null>();

  constructor(private readonly db: Db) {}

  graph(projectId: string, workflowId: string, version: number): Promise<WorkflowGraph | undefined> {
    const key = `${projectId}:${workflowId}:${version}`;
    let graph = this.graphs.get(key);
    if (!graph) {
      graph = loadGraph(this.db, projectId, workflowId, version);
      this.graphs.set(key, graph);
      graph.catch(() => this.graphs.delete(key));
    }
    return graph;
  }

  /** The template of a SEND_EMAIL step; 404 when it was deleted (the step fails). */
  async template(tx: Queryable, projectId: string, templateId: string): Promise<Template> {
    const key = `${projectId}:${templateId}`;
    const cached = this.templates.get(key);
    if (cached) return cached;
    const template = await getTemplateForSend(tx, projectId, templateId);
    this.templates.set(key, template);
    return template;
  }

  async signingKey(tx: Queryable, projectId: string, fromEmail: string): Promise<SigningKey | null> {
    const key = `${projectId}:${fromEmail}`;
    if (this.keys.has(key)) return this.keys.get(key)!;
    const found = (await signingKeyFor(tx, projectId, fromEmail)) ?? null;
    this.keys.set(key, found);
    return found;
  }
}

/** Template variables a workflow adds to the contact's (docs/decisions/templates.md): `event`, `context`, `workflow`, `execution`. */
export function workflowVariables(exec: LockedExecution, graph: WorkflowGraph) {
  return {
    event: exec.event_data ?? {},
    context: exec.context ?? {},
    workflow: { id: graph.id, name: graph.name },
    execution: { id: exec.id },
  };
}
