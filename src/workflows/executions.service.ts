import { findContact } from '../contacts/contacts.queries.ts';
import type { Deps } from '../deps.ts';
import { AppError, notFound } from '../errors.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, type Page, pageOf } from '../pagination.ts';
import * as queries from './executions.queries.ts';
import { type Execution, type ListExecutionsInput, type StartExecutionInput, toExecution, toExecutionStep } from './executions.schemas.ts';
import { enqueueRun } from './workflows.jobs.ts';
import { findWorkflow } from './workflows.queries.ts';

async function requireWorkflow(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string) {
  const workflow = await findWorkflow(deps.db, projectId, workflowId);
  if (!workflow) throw notFound('Workflow');
  return workflow;
}

/**
 * POST /workflows/{id}/executions (docs/decisions/workflows.md): a manual start for one contact with an optional
 * `context`. 400 when the workflow is disabled, 404 for an unknown contact, 409 when the re-entry
 * rules refuse. The steps run in the background, never in this request.
 */
export async function startExecution(deps: Pick<Deps, 'db' | 'queue'>, projectId: string, workflowId: string, input: StartExecutionInput): Promise<Execution> {
  return deps.db.transaction(async (tx) => {
    const workflow = await findWorkflow(tx, projectId, workflowId);
    if (!workflow) throw notFound('Workflow');
    if (!workflow.enabled) throw new AppError('WORKFLOW_DISABLED', { message: 'The workflow is disabled; enable it with PATCH /workflows/{id} first.' });
    if (!(await findContact(tx, projectId, input.contactId))) throw notFound('Contact');
    const row = await queries.startExecution(tx, projectId, { id: workflow.id, allowReentry: workflow.allow_reentry }, input.contactId, input.context ?? {});
    if (!row) {
      throw new AppError('REENTRY_REFUSED', {
        message: workflow.allow_reentry
          ? 'The contact already has a RUNNING or WAITING execution of this workflow.'
          : 'The contact has already entered this workflow, and allowReentry is false.',
      });
    }
    if (row.status === 'RUNNING') await enqueueRun(deps.queue, tx);
    return toExecution(row);
  });
}

/** GET /workflows/{id}/executions: newest first, cursor-paginated like GET /events, `status` filter. */
export async function listExecutions(deps: Pick<Deps, 'db' | 'config'>, projectId: string, workflowId: string, input: ListExecutionsInput): Promise<Page<Execution>> {
  await requireWorkflow(deps, projectId, workflowId);
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const before = input.cursor ? decodeCursor(secret, input.cursor, { sort: 'executions', dir: 'desc', checkValue: isCursorTimestamp }) : undefined;
  const rows = await queries.listExecutions(deps.db, projectId, workflowId, { status: input.status, contactId: input.contactId, before, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at: { sort: 'executions', dir: 'desc' },
    map: toExecution,
    total: input.cursor ? undefined : () => queries.countExecutions(deps.db, projectId, workflowId, input.status, input.contactId),
  });
}

/** GET /contacts/{id}/executions: newest first across workflows, cursor-paginated; 404 for an unknown contact. */
export async function listContactExecutions(deps: Pick<Deps, 'db' | 'config'>, projectId: string, contactId: string, input: { limit?: number; cursor?: string }) {
  if (!(await findContact(deps.db, projectId, contactId))) throw notFound('Contact');
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const at = { sort: 'contact-executions', dir: 'desc' as const };
  const before = input.cursor ? decodeCursor(secret, input.cursor, { ...at, checkValue: isCursorTimestamp }) : undefined;
  const rows = await queries.listContactExecutions(deps.db, projectId, contactId, { before, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at,
    map: (row) => ({ ...toExecution(row), workflowName: row.workflow_name }),
    total: input.cursor ? undefined : () => queries.countContactExecutions(deps.db, projectId, contactId),
  });
}

/** GET …/executions/active: how many executions run or wait at each step now. */
export async function activeExecutionsByStep(deps: Pick<Deps, 'db' | 'config'>, projectId: string, workflowId: string) {
  await requireWorkflow(deps, projectId, workflowId);
  const rows = await queries.countActiveByStep(deps.db, projectId, workflowId);
  return { data: rows.map((row) => ({ stepId: row.step_id, running: row.running, waiting: row.waiting })) };
}

/** GET …/executions/{executionId}: the execution with a record per step it reached. */
export async function getExecution(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string, executionId: string) {
  const row = await queries.findExecution(deps.db, projectId, workflowId, executionId);
  if (!row) throw notFound('Execution');
  const steps = await queries.findStepRecords(deps.db, projectId, executionId);
  return { ...toExecution(row), steps: steps.map(toExecutionStep) };
}

/** DELETE …/executions/{executionId}: cancels a RUNNING or WAITING execution (else 400). */
export async function cancelExecution(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string, executionId: string): Promise<Execution> {
  const [row] = await queries.cancelExecutions(deps.db, projectId, workflowId, executionId);
  if (row) return toExecution(row);
  const existing = await queries.findExecution(deps.db, projectId, workflowId, executionId);
  if (!existing) throw notFound('Execution');
  throw new AppError('EXECUTION_NOT_ACTIVE', { message: `The execution is ${existing.status}; only a RUNNING or WAITING one can be cancelled.` });
}

/** POST …/executions/cancel-all. */
export async function cancelAllExecutions(deps: Pick<Deps, 'db'>, projectId: string, workflowId: string): Promise<{ cancelled: number }> {
  await requireWorkflow(deps, projectId, workflowId);
  const rows = await queries.cancelExecutions(deps.db, projectId, workflowId, null);
  return { cancelled: rows.length };
}

/** GET /workflows/stats: the workflows list's execution counts. */
export async function workflowStats(deps: Pick<Deps, 'db'>, projectId: string) {
  const rows = await queries.executionStats(deps.db, projectId);
  return { data: rows.map(({ workflow_id, ...counts }) => ({ workflowId: workflow_id, ...counts })) };
}
