import type { Queryable } from '../db/index.ts';
import type { StepType } from './step-configs.ts';
import type { StepRow, TransitionRow, WorkflowRow } from './workflows.schemas.ts';

const STEP_COLUMNS = 'id, workflow_id, type, name, config, created_at';
const TRANSITION_COLUMNS = 'id, workflow_id, from_step_id, to_step_id, branch';

/** A workflow and its TRIGGER step (docs/decisions/workflows.md: every workflow starts with one), in one statement. */
export async function insertWorkflow(
  db: Queryable,
  projectId: string,
  input: { name: string; description: string | null; eventName: string; allowReentry: boolean },
): Promise<WorkflowRow> {
  const rows = await db.query<WorkflowRow>(
    `WITH w AS (
       INSERT INTO workflows (project_id, name, description, event_name, allow_reentry)
       VALUES ($1, $2, $3, $4, $5)
       RETURNING *
     ), trigger_step AS (
       INSERT INTO workflow_steps (project_id, workflow_id, type, name) SELECT $1, id, 'TRIGGER', 'Trigger' FROM w
     )
     SELECT * FROM w`,
    [projectId, input.name, input.description, input.eventName, input.allowReentry],
  );
  return rows[0]!;
}

const LOCKS = { edit: ' FOR NO KEY UPDATE', delete: ' FOR UPDATE' } as const;

/**
 * One workflow, optionally locked. `edit` serialises changes to it and its graph without holding
 * off triggers (their foreign key checks take a key-share lock); `delete` holds them off too.
 */
export async function findWorkflow(db: Queryable, projectId: string, id: string, options: { lock?: keyof typeof LOCKS } = {}): Promise<WorkflowRow | undefined> {
  const rows = await db.query<WorkflowRow>(`SELECT * FROM workflows WHERE project_id = $1 AND id = $2${options.lock ? LOCKS[options.lock] : ''}`, [projectId, id]);
  return rows[0];
}

export async function listWorkflows(db: Queryable, projectId: string): Promise<WorkflowRow[]> {
  return db.query<WorkflowRow>('SELECT * FROM workflows WHERE project_id = $1 ORDER BY created_at, id', [projectId]);
}

export async function findSteps(db: Queryable, projectId: string, workflowIds: string[]): Promise<StepRow[]> {
  return db.query<StepRow>(`SELECT ${STEP_COLUMNS} FROM workflow_steps WHERE project_id = $1 AND workflow_id = ANY($2::uuid[]) ORDER BY created_at, id`, [projectId, workflowIds]);
}

export async function findTransitions(db: Queryable, projectId: string, workflowIds: string[]): Promise<TransitionRow[]> {
  return db.query<TransitionRow>(`SELECT ${TRANSITION_COLUMNS} FROM workflow_transitions WHERE project_id = $1 AND workflow_id = ANY($2::uuid[]) ORDER BY created_at, id`, [
    projectId,
    workflowIds,
  ]);
}

export type WorkflowPatch = {
  name?: string;
  description?: string | null;
  triggerType?: 'EVENT' | 'MANUAL';
  eventName?: string;
  enabled?: boolean;
  allowReentry?: boolean;
};

/** PATCH /workflows/{id}: the fields given (undefined keeps, `description: null` clears). */
export async function updateWorkflow(db: Queryable, projectId: string, id: string, patch: WorkflowPatch): Promise<WorkflowRow | undefined> {
  const rows = await db.query<WorkflowRow>(
    `UPDATE workflows SET
       name = coalesce($3, name),
       description = CASE WHEN $4::boolean THEN $5 ELSE description END,
       trigger_type = coalesce($6, trigger_type),
       event_name = coalesce($7, event_name),
       enabled = coalesce($8, enabled),
       allow_reentry = coalesce($9, allow_reentry),
       updated_at = now()
     WHERE project_id = $1 AND id = $2
     RETURNING *`,
    [
      projectId,
      id,
      patch.name ?? null,
      patch.description !== undefined,
      patch.description ?? null,
      patch.triggerType ?? null,
      patch.eventName ?? null,
      patch.enabled ?? null,
      patch.allowReentry ?? null,
    ],
  );
  return rows[0];
}

export async function countActiveExecutions(db: Queryable, projectId: string, workflowId: string): Promise<number> {
  const rows = await db.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM workflow_executions WHERE project_id = $1 AND workflow_id = $2 AND status IN ('RUNNING', 'WAITING')`,
    [projectId, workflowId],
  );
  return rows[0]!.count;
}

export async function deleteWorkflow(db: Queryable, projectId: string, id: string): Promise<void> {
  await db.query('DELETE FROM workflows WHERE project_id = $1 AND id = $2', [projectId, id]);
}

/** Touches updated_at when the graph changes. */
export async function touchWorkflow(db: Queryable, projectId: string, id: string): Promise<void> {
  await db.query('UPDATE workflows SET updated_at = now() WHERE project_id = $1 AND id = $2', [projectId, id]);
}

export async function insertStep(
  db: Queryable,
  projectId: string,
  workflowId: string,
  step: { type: StepType; name: string | null; config: Record<string, unknown> },
): Promise<StepRow> {
  const rows = await db.query<StepRow>(`INSERT INTO workflow_steps (project_id, workflow_id, type, name, config) VALUES ($1, $2, $3, $4, $5::jsonb) RETURNING ${STEP_COLUMNS}`, [
    projectId,
    workflowId,
    step.type,
    step.name,
    JSON.stringify(step.config),
  ]);
  return rows[0]!;
}

export async function updateStep(
  db: Queryable,
  projectId: string,
  stepId: string,
  patch: { name?: string | null; config?: Record<string, unknown> },
): Promise<StepRow | undefined> {
  const rows = await db.query<StepRow>(
    `UPDATE workflow_steps SET
       name = CASE WHEN $3::boolean THEN $4 ELSE name END,
       config = coalesce($5::jsonb, config)
     WHERE project_id = $1 AND id = $2
     RETURNING ${STEP_COLUMNS}`,
    [projectId, stepId, patch.name !== undefined, patch.name ?? null, patch.config ? JSON.stringify(patch.config) : null],
  );
  return rows[0];
}

/** Deletes a step; its transitions go with it (foreign keys cascade). */
export async function deleteStep(db: Queryable, projectId: string, stepId: string): Promise<void> {
  await db.query('DELETE FROM workflow_steps WHERE project_id = $1 AND id = $2', [projectId, stepId]);
}

export async function insertTransition(
  db: Queryable,
  projectId: string,
  workflowId: string,
  edge: { fromStepId: string; toStepId: string; branch: string | null },
): Promise<TransitionRow> {
  const rows = await db.query<TransitionRow>(
    `INSERT INTO workflow_transitions (project_id, workflow_id, from_step_id, to_step_id, branch) VALUES ($1, $2, $3, $4, $5) RETURNING ${TRANSITION_COLUMNS}`,
    [projectId, workflowId, edge.fromStepId, edge.toStepId, edge.branch],
  );
  return rows[0]!;
}

export async function deleteTransition(db: Queryable, projectId: string, workflowId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM workflow_transitions WHERE project_id = $1 AND workflow_id = $2 AND id = $3 RETURNING id', [projectId, workflowId, id]);
  return rows.length > 0;
}

// --- Usage (templates, contact fields, event names) ---------------------------------------------

export async function findTemplateUsage(db: Queryable, projectId: string, templateId: string) {
  return db.query<{ id: string; name: string; step_id: string }>(
    `SELECT w.id, w.name, s.id AS step_id
     FROM workflow_steps s JOIN workflows w ON w.project_id = s.project_id AND w.id = s.workflow_id
     WHERE s.project_id = $1 AND s.type = 'SEND_EMAIL' AND s.config ->> 'templateId' = $2
     ORDER BY w.created_at, s.created_at`,
    [projectId, templateId],
  );
}

/** Workflows with a CONDITION on the field, or an UPDATE_CONTACT writing the data key. */
export async function findFieldUsage(db: Queryable, projectId: string, conditionField: string, dataKey: string | null) {
  return db.query<{ id: string; name: string }>(
    `SELECT w.id, w.name FROM workflows w
     WHERE w.project_id = $1 AND EXISTS (
       SELECT 1 FROM workflow_steps s
       WHERE s.project_id = w.project_id AND s.workflow_id = w.id
         AND ((s.type = 'CONDITION' AND s.config ->> 'field' = $2)
           OR (s.type = 'UPDATE_CONTACT' AND $3::text IS NOT NULL AND s.config -> 'data' ? $3::text)))
     ORDER BY w.created_at, w.id`,
    [projectId, conditionField, dataKey],
  );
}

/** Workflows triggered by the event name, or waiting for it in a WAIT_FOR_EVENT step. */
export async function findEventUsage(db: Queryable, projectId: string, eventName: string) {
  return db.query<{ id: string; name: string }>(
    `SELECT w.id, w.name FROM workflows w
     WHERE w.project_id = $1 AND ((w.trigger_type = 'EVENT' AND w.event_name = $2) OR EXISTS (
       SELECT 1 FROM workflow_steps s
       WHERE s.project_id = w.project_id AND s.workflow_id = w.id AND s.type = 'WAIT_FOR_EVENT' AND s.config ->> 'eventName' = $2))
     ORDER BY w.created_at, w.id`,
    [projectId, eventName],
  );
}

/** Data keys seen in the most recent events of a name (GET /workflows/fields?eventName=). */
export async function recentEventDataKeys(db: Queryable, projectId: string, eventName: string, sample: number): Promise<Array<{ key: string; type: string }>> {
  return db.query<{ key: string; type: string }>(
    `SELECT k.key, mode() WITHIN GROUP (ORDER BY jsonb_typeof(k.value)) AS type
     FROM (SELECT data FROM events WHERE project_id = $1 AND name = $2 ORDER BY created_at DESC LIMIT $3) e,
          jsonb_each(e.data) AS k
     GROUP BY k.key ORDER BY k.key`,
    [projectId, eventName, sample],
  );
}

/** A SEND_EMAIL step's template exists in the project (checked when the step is added or changed). */
export async function templateExists(db: Queryable, projectId: string, templateId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM templates WHERE project_id = $1 AND id = $2', [projectId, templateId]);
  return rows.length > 0;
}
