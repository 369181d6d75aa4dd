import { z } from 'zod';
import { isoOrNull } from './workflows.schemas.ts';

export const EXECUTION_STATUSES = ['RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED'] as const;
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];
export const ACTIVE_STATUSES: readonly ExecutionStatus[] = ['RUNNING', 'WAITING'];

export type ExecutionRow = {
  project_id: string;
  id: string;
  workflow_id: string;
  workflow_version: number;
  contact_id: string;
  status: ExecutionStatus;
  current_step_id: string | null;
  context: Record<string, unknown>;
  event_id: string | null;
  event_name: string | null;
  event_data: Record<string, unknown> | null;
  exit_reason: string | null;
  error: string | null;
  due_at: Date | string | null;
  claim: string | null;
  wait_event_name: string | null;
  wait_started_at: Date | string | null;
  resume_event_id: string | null;
  started_at: Date | string;
  updated_at: Date | string;
  completed_at: Date | string | null;
};

export type StepRecordRow = {
  step_id: string;
  step_type: string;
  status: string;
  attempts: number;
  output: unknown;
  error: string | null;
  started_at: Date | string;
  completed_at: Date | string | null;
};

export const executionSchema = z.object({
  id: z.uuid(),
  workflowId: z.uuid(),
  workflowVersion: z.number().int().describe('the workflow version the execution started on and runs to its end on'),
  contactId: z.uuid(),
  status: z.enum(EXECUTION_STATUSES),
  currentStepId: z.uuid().nullable(),
  context: z.record(z.string(), z.unknown()),
  exitReason: z.string().nullable(),
  error: z.string().nullable(),
  startedAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.string().nullable(),
});
export type Execution = z.infer<typeof executionSchema>;

export const executionStepSchema = z.object({
  stepId: z.uuid(),
  type: z.string(),
  status: z.string(),
  attempts: z.number().int(),
  startedAt: z.string(),
  completedAt: z.string().nullable(),
  output: z.unknown(),
  error: z.string().nullable(),
});

export const executionDetailSchema = executionSchema.extend({ steps: z.array(executionStepSchema) });

export function toExecution(row: ExecutionRow): Execution {
  return {
    id: row.id,
    workflowId: row.workflow_id,
    workflowVersion: row.workflow_version,
    contactId: row.contact_id,
    status: row.status,
    currentStepId: row.current_step_id,
    context: row.context,
    exitReason: row.exit_reason,
    error: row.error,
    startedAt: isoOrNull(row.started_at)!,
    updatedAt: isoOrNull(row.updated_at)!,
    completedAt: isoOrNull(row.completed_at),
  };
}

export const toExecutionStep = (row: StepRecordRow) => ({
  stepId: row.step_id,
  type: row.step_type,
  status: row.status,
  attempts: row.attempts,
  startedAt: isoOrNull(row.started_at)!,
  completedAt: isoOrNull(row.completed_at),
  output: row.output ?? null,
  error: row.error,
});

export const startExecutionBody = z.object({ contactId: z.uuid(), context: z.record(z.string(), z.unknown()).optional() });
export type StartExecutionInput = z.infer<typeof startExecutionBody>;

export const executionParams = z.object({ id: z.uuid(), executionId: z.uuid() });

export const listExecutionsQuery = z.object({
  status: z.enum(EXECUTION_STATUSES).optional(),
  contactId: z.uuid().optional().describe("only this contact's executions"),
  limit: z.coerce.number().int().min(1).optional().describe('default 20; values above 100 are clamped'),
  cursor: z.string().max(500).optional(),
});
export type ListExecutionsInput = z.infer<typeof listExecutionsQuery>;

export const executionPage = z.object({ data: z.array(executionSchema), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });
/** GET /contacts/{id}/executions: a contact's executions of every workflow, each with its workflow's name. */
export const contactExecutionPage = z.object({
  data: z.array(executionSchema.extend({ workflowName: z.string() })),
  cursor: z.string().nullable(),
  hasMore: z.boolean(),
  total: z.number().int(),
});
export const contactExecutionsQuery = listExecutionsQuery.pick({ limit: true, cursor: true });
export const cancelAllResult = z.object({ cancelled: z.number().int() });
/** How many executions are RUNNING or WAITING at each step now, of every version (the canvas's counts per node). */
export const activeByStep = z.object({ data: z.array(z.object({ stepId: z.string(), running: z.number().int(), waiting: z.number().int() })) });
