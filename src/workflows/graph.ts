import { AppError } from '../errors.ts';
import type { StepType } from './step-configs.ts';

/**
 * The graph rules of docs/decisions/workflows.md, as pure functions over a workflow's steps and transitions.
 * Each outgoing edge fills one *outcome* of its step: 'yes'/'no' of a CONDITION, 'event'/'timeout'
 * of a WAIT_FOR_EVENT, 'next' of any other step. An outcome holds at most one edge, and the
 * graph stays acyclic, so an execution reaches each step at most once.
 */
export type GraphStep = { id: string; type: StepType; config: Record<string, unknown> };
export type GraphEdge = { id: string; fromStepId: string; toStepId: string; branch: string | null };

export type Outcome = 'next' | 'yes' | 'no' | 'event' | 'timeout';

const invalid = (message: string) => new AppError('INVALID_TRANSITION', { message });

const hasTimeout = (step: GraphStep) => typeof step.config.timeoutSeconds === 'number';

/** The outcome an edge with `branch` fills on `from`; a branch the step cannot have → 400. */
export function outcomeOf(from: GraphStep, branch: string | null): Outcome {
  switch (from.type) {
    case 'EXIT':
      throw invalid('An EXIT step ends the execution: it cannot have outgoing transitions.');
    case 'CONDITION':
      if (branch === 'yes' || branch === 'no') return branch;
      throw invalid("A transition out of a CONDITION step needs branch 'yes' or 'no'.");
    case 'WAIT_FOR_EVENT':
      // An edge without a branch is followed when the event arrives; 'timeout' needs a timeout.
      if (branch === null || branch === 'event') return 'event';
      if (branch === 'timeout' && hasTimeout(from)) return 'timeout';
      throw invalid(
        branch === 'timeout'
          ? "Only a WAIT_FOR_EVENT step with timeoutSeconds can have a 'timeout' branch."
          : "A transition out of a WAIT_FOR_EVENT step takes branch 'event' or 'timeout' (or none, meaning 'event').",
      );
    default:
      if (branch === null) return 'next';
      throw invalid(`A ${from.type} step has one outgoing transition and no branch.`);
  }
}

/** True when `target` can be reached from `start` along the edges. */
function reaches(edges: GraphEdge[], start: string, target: string): boolean {
  const seen = new Set<string>([start]);
  const stack = [start];
  while (stack.length) {
    const at = stack.pop()!;
    if (at === target) return true;
    for (const edge of edges) {
      if (edge.fromStepId === at && !seen.has(edge.toStepId)) {
        seen.add(edge.toStepId);
        stack.push(edge.toStepId);
      }
    }
  }
  return false;
}

/**
 * Checks a new edge against the graph (400 INVALID_TRANSITION): both steps in this workflow, no
 * self-loop, nothing into the TRIGGER, nothing out of EXIT, a free outcome, and no cycle.
 */
export function checkNewEdge(steps: Map<string, GraphStep>, edges: GraphEdge[], edge: { fromStepId: string; toStepId: string; branch: string | null }): void {
  const from = steps.get(edge.fromStepId);
  const to = steps.get(edge.toStepId);
  if (!from || !to) throw invalid(`Step ${!from ? edge.fromStepId : edge.toStepId} is not a step of this workflow.`);
  if (from.id === to.id) throw invalid('A step cannot transition to itself.');
  if (to.type === 'TRIGGER') throw invalid('The TRIGGER step is the entry point: nothing can transition to it.');
  const outcome = outcomeOf(from, edge.branch);
  const taken = edges.find((e) => e.fromStepId === from.id && outcomeOf(from, e.branch) === outcome);
  if (taken) {
    const what = outcome === 'next' ? 'its one outgoing transition' : `a '${outcome}' transition`;
    throw invalid(`The ${from.type} step already has ${what} (${taken.id}).`);
  }
  if (reaches(edges, to.id, from.id)) throw invalid('The transition would make a cycle.');
}

/**
 * DELETE …/steps/{id}?splice=true: the edge that joins the step's single predecessor to its single
 * successor, keeping the predecessor's branch. Null when there is nothing to join (no predecessor
 * or no successor); 400 when the step has several of either.
 */
export function spliceEdge(stepId: string, edges: GraphEdge[]): { fromStepId: string; toStepId: string; branch: string | null } | null {
  const incoming = edges.filter((e) => e.toStepId === stepId);
  const outgoing = edges.filter((e) => e.fromStepId === stepId);
  if (incoming.length > 1 || outgoing.length > 1) {
    throw new AppError('BAD_REQUEST', {
      message: `splice=true needs a single predecessor and a single successor; this step has ${incoming.length} and ${outgoing.length}.`,
      suggestion: 'Delete without splice, then add the transitions you want.',
    });
  }
  if (incoming.length === 0 || outgoing.length === 0) return null;
  return { fromStepId: incoming[0]!.fromStepId, toStepId: outgoing[0]!.toStepId, branch: incoming[0]!.branch };
}

/** A config change must not orphan the step's branches (e.g. dropping the timeout of a WAIT with a 'timeout' edge). */
export function checkEdgesStillValid(step: GraphStep, edges: GraphEdge[]): void {
  for (const edge of edges) if (edge.fromStepId === step.id) outcomeOf(step, edge.branch);
}
