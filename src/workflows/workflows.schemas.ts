import { z } from 'zod';
import { STEP_TYPES, type StepType } from './step-configs.ts';

/** Rows as the queries select them. */
export type WorkflowRow = {
  project_id: string;
  id: string;
  name: string;
  description: string | null;
  trigger_type: 'EVENT' | 'MANUAL';
  event_name: string | null;
  enabled: boolean;
  allow_reentry: boolean;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
};
export type StepRow = { id: string; workflow_id: string; type: StepType; name: string | null; config: Record<string, unknown>; created_at: Date | string };
export type TransitionRow = { id: string; workflow_id: string; from_step_id: string; to_step_id: string; branch: string | null };

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();
export const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

export const stepSchema = z.object({
  id: z.uuid(),
  type: z.enum(['TRIGGER', ...STEP_TYPES]),
  name: z.string().nullable(),
  config: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export type Step = z.infer<typeof stepSchema>;

export const transitionSchema = z.object({ id: z.uuid(), fromStepId: z.uuid(), toStepId: z.uuid(), branch: z.string().nullable() });
export type Transition = z.infer<typeof transitionSchema>;

export const workflowSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  triggerType: z.enum(['EVENT', 'MANUAL']),
  triggerConfig: z.object({ eventName: z.string().optional() }),
  enabled: z.boolean(),
  allowReentry: z.boolean(),
  version: z.number().int().describe("the newest version: each change of an enabled workflow's steps or transitions makes one (docs/workflow-versions.md)"),
  steps: z.array(stepSchema),
  transitions: z.array(transitionSchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Workflow = z.infer<typeof workflowSchema>;

export const toStep = (row: StepRow): Step => ({ id: row.id, type: row.type, name: row.name, config: row.config, createdAt: iso(row.created_at) });
export const toTransition = (row: TransitionRow): Transition => ({ id: row.id, fromStepId: row.from_step_id, toStepId: row.to_step_id, branch: row.branch });

export function toWorkflow(row: WorkflowRow, steps: StepRow[], transitions: TransitionRow[]): Workflow {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    triggerType: row.trigger_type,
    // A MANUAL workflow keeps its event name for a switch back, but is not triggered by it.
    triggerConfig: row.trigger_type === 'EVENT' && row.event_name !== null ? { eventName: row.event_name } : {},
    enabled: row.enabled,
    allowReentry: row.allow_reentry,
    version: row.version,
    steps: steps.map(toStep),
    transitions: transitions.map(toTransition),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

// --- Requests -----------------------------------------------------------------------------------

export const MAX_NAME = 200;
const name = z.string().trim().min(1).max(MAX_NAME);
const description = z.string().max(2000).nullable();
export const eventName = z.string().trim().min(1).max(255);

export const createWorkflowBody = z.object({ name, description: description.optional(), eventName, allowReentry: z.boolean().optional() });
export type CreateWorkflowInput = z.infer<typeof createWorkflowBody>;

export const patchWorkflowBody = z.object({
  name: name.optional(),
  description: description.optional(),
  triggerType: z.enum(['EVENT', 'MANUAL']).optional(),
  triggerConfig: z.object({ eventName: eventName.optional() }).optional(),
  enabled: z.boolean().optional(),
  allowReentry: z.boolean().optional(),
});
export type PatchWorkflowInput = z.infer<typeof patchWorkflowBody>;

// The config is checked per type by the service (step-configs.ts), so its errors carry `config.<path>`.
export const createStepBody = z.object({
  type: z.enum(STEP_TYPES),
  name: z.string().trim().max(MAX_NAME).nullable().optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  // Both make the step and its edges one change, so a live workflow gets one version and no
  // execution starts on a half-made graph (docs/workflow-versions.md).
  insertOn: z.uuid().optional().describe('a transition to insert the step into: from → step (keeping the branch) → to'),
  after: z
    .object({ stepId: z.uuid(), branch: z.string().max(20).nullable().optional() })
    .optional()
    .describe('a step to connect the new step after'),
});
export type CreateStepInput = z.infer<typeof createStepBody>;

export const patchStepBody = z.object({ name: z.string().trim().max(MAX_NAME).nullable().optional(), config: z.record(z.string(), z.unknown()).optional() });
export type PatchStepInput = z.infer<typeof patchStepBody>;

export const createTransitionBody = z.object({ fromStepId: z.uuid(), toStepId: z.uuid(), branch: z.string().max(20).nullable().optional() });
export type CreateTransitionInput = z.infer<typeof createTransitionBody>;

export const workflowParams = z.object({ id: z.uuid() });
export const stepParams = z.object({ id: z.uuid(), stepId: z.uuid() });
export const transitionParams = z.object({ id: z.uuid(), transitionId: z.uuid() });
export const deleteStepQuery = z.object({ splice: z.enum(['true', 'false']).optional() });

export const workflowList = z.object({ data: z.array(workflowSchema) });

export const conditionFields = z.object({
  fields: z.array(z.object({ field: z.string(), type: z.string(), source: z.enum(['contact', 'data', 'event', 'context']), operators: z.array(z.string()) })),
  eventNames: z.array(z.string()),
});
export const fieldsQuery = z.object({ eventName: z.string().max(255).optional().describe('also list event.<key> fields seen in recent events of this name') });

// --- Versions and dry run (docs/workflow-versions.md) -------------------------------------------

export const versionParams = z.object({ id: z.uuid(), version: z.coerce.number().int().min(1) });

export const versionSchema = z.object({
  version: z.number().int(),
  createdAt: z.string(),
  createdBy: z.string().nullable().describe("a dashboard user's email, or 'API key'"),
  changes: z.array(z.string()).describe('what changed since the version before, in words'),
  steps: z.array(stepSchema),
  transitions: z.array(transitionSchema),
  executions: z.object({ running: z.number().int(), waiting: z.number().int() }),
});
export const versionList = z.object({ data: z.array(versionSchema) });

export const simulateBody = z.object({
  contactId: z.uuid(),
  event: z
    .object({ name: eventName, data: z.record(z.string(), z.unknown()).optional() })
    .optional()
    .describe('the triggering event; a WAIT_FOR_EVENT for its name follows its event branch'),
});
export type SimulateInput = z.infer<typeof simulateBody>;

export const SIMULATION_RESULTS = ['COMPLETED', 'EXITED', 'WAITING', 'FAILED'] as const;
export const simulation = z.object({
  version: z.number().int(),
  path: z.array(
    z.object({
      stepId: z.uuid(),
      type: z.string(),
      outcome: z.string().describe("the edge taken: 'next', 'yes', 'no', 'event', 'timeout'; or 'exit', 'wait', 'fail', 'end'"),
      detail: z.string().describe('why, in words'),
    }),
  ),
  result: z.enum(SIMULATION_RESULTS),
});
export type Simulation = z.infer<typeof simulation>;

export const workflowStats = z.object({
  data: z.array(
    z.object({
      workflowId: z.uuid(),
      running: z.number().int(),
      waiting: z.number().int(),
      completed: z.number().int().describe('of the executions started in the last 7 days'),
      exited: z.number().int(),
      failed: z.number().int(),
    }),
  ),
});
