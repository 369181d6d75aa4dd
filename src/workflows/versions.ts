import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { notFound } from '../errors.ts';
import * as queries from './versions.queries.ts';
import type { Step, Transition, WorkflowRow } from './workflows.schemas.ts';

/** Who changes a workflow's graph: a dashboard user, or an API key. */
export type Actor = { userId: string } | { apiKey: true };

async function actorName(db: Queryable, actor: Actor): Promise<string> {
  if ('userId' in actor) return (await queries.userEmail(db, actor.userId)) ?? 'a former member';
  return 'API key';
}

/**
 * Called under the workflow's row lock before its graph changes: a workflow made before versions
 * existed gets its version row from the live graph, as it is before the change.
 */
export async function beforeGraphChange(tx: Queryable, projectId: string, workflow: WorkflowRow): Promise<void> {
  await queries.snapshotLiveGraph(tx, projectId, workflow.id, workflow.version, null, 'keep');
}

/**
 * Called under the same lock after the graph changed (docs/workflow-versions.md): an enabled
 * workflow, or one whose newest version some execution started on, gets a new version, so those
 * executions keep their graph; otherwise the newest version (a draft nobody ran) is rewritten.
 * The live graph is then again the newest version's.
 */
export async function afterGraphChange(tx: Queryable, projectId: string, workflow: WorkflowRow, actor: Actor): Promise<number> {
  if (workflow.enabled || (await queries.versionUsed(tx, projectId, workflow.id, workflow.version))) return newVersion(tx, projectId, workflow, actor);
  await queries.snapshotLiveGraph(tx, projectId, workflow.id, workflow.version, await actorName(tx, actor), 'replace');
  return workflow.version;
}

/** Stores the live graph as the next version, which new executions then start on. */
export async function newVersion(tx: Queryable, projectId: string, workflow: WorkflowRow, actor: Actor): Promise<number> {
  const version = workflow.version + 1;
  await queries.snapshotLiveGraph(tx, projectId, workflow.id, version, await actorName(tx, actor), 'replace');
  await queries.setWorkflowVersion(tx, projectId, workflow.id, version);
  return version;
}

/** What changed from one version's graph to the next, in words for the versions list. */
export function describeChanges(before: { steps: Step[]; transitions: Transition[] } | undefined, after: { steps: Step[]; transitions: Transition[] }): string[] {
  if (!before) return ['Created'];
  const label = (step: Step | undefined) => (step ? `${step.type}${step.name ? ` "${step.name}"` : ''}` : 'a removed step');
  const beforeSteps = new Map(before.steps.map((s) => [s.id, s]));
  const afterSteps = new Map(after.steps.map((s) => [s.id, s]));
  const changes: string[] = [];
  for (const step of after.steps) {
    const old = beforeSteps.get(step.id);
    if (!old) changes.push(`Added ${label(step)}`);
    else if (JSON.stringify(old.config) !== JSON.stringify(step.config) || old.name !== step.name) changes.push(`Changed ${label(step)}`);
  }
  for (const step of before.steps) if (!afterSteps.has(step.id)) changes.push(`Removed ${label(step)}`);
  const edge = (t: Transition) => `${t.fromStepId}>${t.toStepId}:${t.branch ?? ''}`;
  const beforeEdges = new Set(before.transitions.map(edge));
  const afterEdges = new Set(after.transitions.map(edge));
  const stepOf = (id: string) => afterSteps.get(id) ?? beforeSteps.get(id);
  const describe = (t: Transition) => `${label(stepOf(t.fromStepId))} → ${label(stepOf(t.toStepId))}${t.branch ? ` (${t.branch})` : ''}`;
  for (const t of after.transitions) if (!beforeEdges.has(edge(t))) changes.push(`Connected ${describe(t)}`);
  for (const t of before.transitions) if (!afterEdges.has(edge(t))) changes.push(`Disconnected ${describe(t)}`);
  return changes.length ? changes : ['No change to the graph'];
}

export type VersionSummary = {
  version: number;
  createdAt: string;
  createdBy: string | null;
  changes: string[];
  steps: Step[];
  transitions: Transition[];
  executions: { running: number; waiting: number };
};

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/**
 * GET /workflows/{id}/versions: newest first, each with what changed since the one before. A
 * workflow made before versions existed and never changed since gets its version row first.
 */
export async function listVersions(deps: Pick<Deps, 'db'>, projectId: string, workflow: WorkflowRow): Promise<{ data: VersionSummary[] }> {
  await queries.snapshotLiveGraph(deps.db, projectId, workflow.id, workflow.version, null, 'keep');
  const rows = await queries.listVersions(deps.db, projectId, workflow.id);
  const data = rows.map((row, i) => ({
    version: row.version,
    createdAt: iso(row.created_at),
    createdBy: row.created_by,
    changes: describeChanges(rows[i + 1], row),
    steps: row.steps,
    transitions: row.transitions,
    executions: { running: row.running, waiting: row.waiting },
  }));
  return { data };
}

/** A stored version's graph; 404 for a version the workflow never had. */
export async function versionGraph(db: Queryable, projectId: string, workflowId: string, version: number): Promise<queries.VersionRow> {
  const row = await queries.findVersion(db, projectId, workflowId, version);
  if (!row) throw notFound('Version');
  return row;
}
