import type { Queryable } from '../db/index.ts';
import { cursorTimestampSql } from '../pagination.ts';
import type { ExecutionRow, ExecutionStatus, StepRecordRow } from './executions.schemas.ts';

/**
 * Admission of new executions (docs/decisions/workflows.md re-entry), as CTEs over `cand` (workflow_id,
 * allow_reentry, contact_id, context, event_id, event_name, event_data; at most one row per
 * workflow and contact). Every entry is remembered in workflow_entries, whose primary key lets a
 * contact into an allowReentry-false workflow once even under concurrent triggers; the partial
 * unique index on active executions refuses a second RUNNING or WAITING one. A new execution
 * stands on the TRIGGER's successor, due now; the TRIGGER's own step record is written with it.
 * A TRIGGER without a successor completes at once. The time comes from the `clock` CTE: Citus
 * refuses now() inside CASE in a write.
 */
const ADMIT = `clock AS MATERIALIZED (
       SELECT now() AS now
     ), entered AS (
       INSERT INTO workflow_entries (project_id, workflow_id, contact_id)
       SELECT $1, workflow_id, contact_id FROM cand
       ON CONFLICT DO NOTHING
       RETURNING workflow_id, contact_id
     ), admitted AS (
       SELECT c.*, s.id AS trigger_step_id, t.to_step_id AS first_step_id
       FROM cand c
       JOIN workflow_steps s ON s.project_id = $1 AND s.workflow_id = c.workflow_id AND s.type = 'TRIGGER'
       LEFT JOIN workflow_transitions t ON t.project_id = $1 AND t.from_step_id = s.id
       WHERE c.allow_reentry OR EXISTS (SELECT 1 FROM entered n WHERE n.workflow_id = c.workflow_id AND n.contact_id = c.contact_id)
     ), started AS (
       INSERT INTO workflow_executions (project_id, workflow_id, workflow_version, contact_id, status, current_step_id, context, event_id, event_name, event_data, due_at, completed_at)
       SELECT $1, workflow_id, workflow_version, contact_id,
              CASE WHEN first_step_id IS NULL THEN 'COMPLETED' ELSE 'RUNNING' END,
              coalesce(first_step_id, trigger_step_id), context, event_id, event_name, event_data,
              CASE WHEN first_step_id IS NULL THEN NULL ELSE clock.now END,
              CASE WHEN first_step_id IS NULL THEN clock.now END
       FROM admitted, clock
       ON CONFLICT (project_id, workflow_id, contact_id) WHERE status IN ('RUNNING', 'WAITING') DO NOTHING
       RETURNING *
     ), trigger_records AS (
       INSERT INTO workflow_execution_steps (project_id, execution_id, step_id, step_type, status, output, completed_at)
       SELECT $1, st.id, a.trigger_step_id, 'TRIGGER', 'COMPLETED',
              CASE WHEN st.event_id IS NULL THEN jsonb_build_object('manual', true)
                   ELSE jsonb_build_object('eventId', st.event_id, 'eventName', st.event_name) END,
              now()
       FROM started st JOIN admitted a ON a.workflow_id = st.workflow_id AND a.contact_id = st.contact_id
     )`;

/**
 * The events.dispatch subscriber, in one statement: starts an execution of every enabled EVENT
 * workflow listening for each event's name (the contact's first such event in the batch), and
 * resumes the contact's WAIT_FOR_EVENT executions awaiting that name whose wait began before the
 * event was tracked. A claimed execution is left alone: its worker decides (the timeout won).
 */
export async function triggerFromEvents(tx: Queryable, projectId: string, eventIds: string[]): Promise<{ started: number; resumed: number }> {
  const rows = await tx.query<{ started: number; resumed: number }>(
    `WITH listening AS (
       -- Most projects have no EVENT workflow and nothing waiting: their events are not even read
       -- (two index probes; the scan below becomes a one-time filter that is false).
       SELECT EXISTS (SELECT 1 FROM workflows WHERE project_id = $1 AND enabled AND trigger_type = 'EVENT')
           OR EXISTS (SELECT 1 FROM workflow_executions WHERE project_id = $1 AND status = 'WAITING') AS yes
     ), ev AS (
       SELECT id, contact_id, name, data, created_at FROM events
       WHERE project_id = $1 AND id = ANY($2::uuid[]) AND (SELECT yes FROM listening)
     ), cand AS (
       SELECT DISTINCT ON (w.id, ev.contact_id)
              w.id AS workflow_id, w.version AS workflow_version, w.allow_reentry, ev.contact_id, '{}'::jsonb AS context,
              ev.id AS event_id, ev.name AS event_name, ev.data AS event_data
       FROM ev JOIN workflows w ON w.project_id = $1 AND w.enabled AND w.trigger_type = 'EVENT' AND w.event_name = ev.name
       ORDER BY w.id, ev.contact_id, ev.created_at, ev.id
     ), ${ADMIT}, waits AS (
       -- LATERAL: looked up by (contact, name) in workflow_executions_waiting_idx, whatever the statistics say.
       SELECT DISTINCT ON (x.id) x.id, ev.id AS event_id
       FROM ev CROSS JOIN LATERAL (
         SELECT id, wait_started_at FROM workflow_executions
         WHERE project_id = $1 AND contact_id = ev.contact_id AND status = 'WAITING' AND wait_event_name = ev.name
           AND resume_event_id IS NULL AND claim IS NULL
       ) x
       WHERE ev.created_at > x.wait_started_at
       ORDER BY x.id, ev.created_at, ev.id
     ), resumed AS (
       UPDATE workflow_executions x SET resume_event_id = w.event_id, due_at = now(), updated_at = now()
       FROM waits w
       WHERE x.project_id = $1 AND x.id = w.id AND x.status = 'WAITING' AND x.resume_event_id IS NULL AND x.claim IS NULL
       RETURNING x.id
     )
     SELECT (SELECT count(*) FROM started WHERE status = 'RUNNING')::int AS started, (SELECT count(*) FROM resumed)::int AS resumed`,
    [projectId, eventIds],
  );
  return rows[0]!;
}

/** POST /workflows/{id}/executions: one execution, or undefined when the re-entry rules refuse. */
export async function startExecution(
  tx: Queryable,
  projectId: string,
  workflow: { id: string; allowReentry: boolean },
  contactId: string,
  context: Record<string, unknown>,
): Promise<ExecutionRow | undefined> {
  const rows = await tx.query<ExecutionRow>(
    `WITH cand AS (
       SELECT $2::uuid AS workflow_id, (SELECT version FROM workflows WHERE project_id = $1 AND id = $2) AS workflow_version, $3::boolean AS allow_reentry, $4::uuid AS contact_id, $5::jsonb AS context,
              NULL::uuid AS event_id, NULL::text AS event_name, NULL::jsonb AS event_data
     ), ${ADMIT}
     SELECT * FROM started`,
    [projectId, workflow.id, workflow.allowReentry, contactId, JSON.stringify(context)],
  );
  return rows[0];
}

export async function findExecution(db: Queryable, projectId: string, workflowId: string, id: string): Promise<ExecutionRow | undefined> {
  const rows = await db.query<ExecutionRow>('SELECT * FROM workflow_executions WHERE project_id = $1 AND workflow_id = $2 AND id = $3', [projectId, workflowId, id]);
  return rows[0];
}

export async function findStepRecords(db: Queryable, projectId: string, executionId: string): Promise<StepRecordRow[]> {
  return db.query<StepRecordRow>(
    `SELECT step_id, step_type, status, attempts, output, error, started_at, completed_at
     FROM workflow_execution_steps WHERE project_id = $1 AND execution_id = $2 ORDER BY started_at, completed_at NULLS LAST`,
    [projectId, executionId],
  );
}

export type ExecutionListQuery = { status?: ExecutionStatus; contactId?: string; before?: { value: string; id: string }; limit: number };

/** Newest first, keyset on (started_at, id); `sort_key` is the cursor's timestamp text. */
export async function listExecutions(db: Queryable, projectId: string, workflowId: string, query: ExecutionListQuery) {
  return db.query<ExecutionRow & { sort_key: string }>(
    `SELECT *, ${cursorTimestampSql('started_at')} AS sort_key FROM workflow_executions
     WHERE project_id = $1 AND workflow_id = $2 AND ($3::text IS NULL OR status = $3) AND ($7::uuid IS NULL OR contact_id = $7)
       AND ($4::timestamptz IS NULL OR (started_at, id) < ($4::timestamptz, $5::uuid))
     ORDER BY started_at DESC, id DESC LIMIT $6`,
    [projectId, workflowId, query.status ?? null, query.before?.value ?? null, query.before?.id ?? null, query.limit, query.contactId ?? null],
  );
}

/** One contact's executions of every workflow, newest first, with each workflow's name (keyset like listExecutions). */
export async function listContactExecutions(db: Queryable, projectId: string, contactId: string, query: { before?: { value: string; id: string }; limit: number }) {
  return db.query<ExecutionRow & { workflow_name: string; sort_key: string }>(
    `SELECT x.*, w.name AS workflow_name, ${cursorTimestampSql('x.started_at')} AS sort_key
     FROM workflow_executions x JOIN workflows w ON w.project_id = x.project_id AND w.id = x.workflow_id
     WHERE x.project_id = $1 AND x.contact_id = $2
       AND ($3::timestamptz IS NULL OR (x.started_at, x.id) < ($3::timestamptz, $4::uuid))
     ORDER BY x.started_at DESC, x.id DESC LIMIT $5`,
    [projectId, contactId, query.before?.value ?? null, query.before?.id ?? null, query.limit],
  );
}

export async function countContactExecutions(db: Queryable, projectId: string, contactId: string): Promise<number> {
  const rows = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM workflow_executions WHERE project_id = $1 AND contact_id = $2', [projectId, contactId]);
  return rows[0]!.count;
}

export async function countExecutions(db: Queryable, projectId: string, workflowId: string, status?: ExecutionStatus, contactId?: string): Promise<number> {
  const rows = await db.query<{ count: number }>(
    'SELECT count(*)::int AS count FROM workflow_executions WHERE project_id = $1 AND workflow_id = $2 AND ($3::text IS NULL OR status = $3) AND ($4::uuid IS NULL OR contact_id = $4)',
    [projectId, workflowId, status ?? null, contactId ?? null],
  );
  return rows[0]!.count;
}

/** RUNNING and WAITING executions counted at their current step, all versions together. */
export async function countActiveByStep(db: Queryable, projectId: string, workflowId: string) {
  return db.query<{ step_id: string; running: number; waiting: number }>(
    `SELECT current_step_id AS step_id, count(*) FILTER (WHERE status = 'RUNNING')::int AS running, count(*) FILTER (WHERE status = 'WAITING')::int AS waiting
     FROM workflow_executions
     WHERE project_id = $1 AND workflow_id = $2 AND status IN ('RUNNING', 'WAITING') AND current_step_id IS NOT NULL
     GROUP BY current_step_id ORDER BY current_step_id`,
    [projectId, workflowId],
  );
}

/**
 * Cancels RUNNING and WAITING executions (one, or all of the workflow when `id` is null), with
 * their unfinished step records. A worker in the middle of a step holds the row lock: this waits
 * for its commit, and the worker's next commit finds the execution no longer its own.
 */
export async function cancelExecutions(db: Queryable, projectId: string, workflowId: string, id: string | null): Promise<ExecutionRow[]> {
  return db.query<ExecutionRow>(
    `WITH cancelled AS (
       UPDATE workflow_executions SET status = 'CANCELLED', due_at = NULL, claim = NULL, completed_at = now(), updated_at = now()
       WHERE project_id = $1 AND workflow_id = $2 AND ($3::uuid IS NULL OR id = $3) AND status IN ('RUNNING', 'WAITING')
       RETURNING *
     ), steps AS (
       UPDATE workflow_execution_steps s SET status = 'CANCELLED', completed_at = now()
       FROM cancelled c
       WHERE s.project_id = $1 AND s.execution_id = c.id AND s.status IN ('RUNNING', 'WAITING')
     )
     SELECT * FROM cancelled`,
    [projectId, workflowId, id],
  );
}

/** Executions waiting on a timer due no later than `until`, soonest first (GET /activity/upcoming). */
export async function findWaitingExecutions(db: Queryable, projectId: string, until: Date, limit: number) {
  return db.query<{
    execution_id: string;
    workflow_id: string;
    name: string;
    due_at: Date;
    step_id: string | null;
    step_type: string | null;
    wait_event_name: string | null;
    contact_id: string;
    email: string;
  }>(
    `SELECT x.id AS execution_id, x.workflow_id, w.name, x.due_at, x.current_step_id AS step_id, s.type AS step_type,
            x.wait_event_name, c.id AS contact_id, c.email
     FROM workflow_executions x
     JOIN workflows w ON w.project_id = x.project_id AND w.id = x.workflow_id
     JOIN contacts c ON c.project_id = x.project_id AND c.id = x.contact_id
     LEFT JOIN workflow_steps s ON s.project_id = x.project_id AND s.id = x.current_step_id
     WHERE x.project_id = $1 AND x.status = 'WAITING' AND x.due_at IS NOT NULL AND x.due_at <= $2
     ORDER BY x.due_at, x.id LIMIT $3`,
    [projectId, until.toISOString(), limit],
  );
}

/**
 * The workflows list's counts (GET /workflows/stats): executions running or waiting now, and those
 * that finished among the ones started in the last 7 days, per workflow.
 */
export async function executionStats(db: Queryable, projectId: string) {
  return db.query<{ workflow_id: string; running: number; waiting: number; completed: number; exited: number; failed: number }>(
    `SELECT workflow_id,
       count(*) FILTER (WHERE status = 'RUNNING')::int AS running,
       count(*) FILTER (WHERE status = 'WAITING')::int AS waiting,
       count(*) FILTER (WHERE status = 'COMPLETED')::int AS completed,
       count(*) FILTER (WHERE status = 'EXITED')::int AS exited,
       count(*) FILTER (WHERE status = 'FAILED')::int AS failed
     FROM workflow_executions
     WHERE project_id = $1 AND (status IN ('RUNNING', 'WAITING') OR started_at > now() - interval '7 days')
     GROUP BY workflow_id`,
    [projectId],
  );
}
