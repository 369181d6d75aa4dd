import { randomUUID } from 'node:crypto';
import type { Queryable } from '../../db/index.ts';
import { type ClaimQueue, claimDue as claimDueOf, dueProjects as dueProjectsOf, nextDueAt as nextDueAtOf, releaseClaimsOf } from '../../jobs/claims.ts';
import type { ExecutionRow, ExecutionStatus } from '../executions.schemas.ts';

/** A claimed execution: what the claim returns, and what every later write must present. */
export type Claimed = { project_id: string; id: string; workflow_id: string; workflow_version: number; claim: string };

/** The locked execution with its contact, and the tries of a retry-safe step it stands on. */
export type LockedExecution = ExecutionRow & {
  contact_email: string;
  contact_subscribed: boolean;
  contact_data: Record<string, unknown>;
  /** The contact's address is on the suppression list (read here, so a SEND_EMAIL to it needs no query). */
  contact_suppressed: boolean;
  current_attempts: number | null;
};

/** The executions the engine claims (src/jobs/claims.ts): RUNNING or WAITING, due or past their lease. */
export const EXECUTION_QUEUE: ClaimQueue = {
  table: 'workflow_executions',
  due: 'due_at',
  pending: "status IN ('RUNNING', 'WAITING')",
  claimed: "status IN ('RUNNING', 'WAITING') AND claim IS NOT NULL",
};

/**
 * The new executions among them: never claimed (a claim keeps its token until the execution waits
 * or ends), due at their first step. The start lane claims these alone (runner.ts).
 */
export const START_QUEUE: ClaimQueue = { ...EXECUTION_QUEUE, pending: "status = 'RUNNING' AND claim IS NULL" };

/**
 * Claims due executions, oldest first (src/jobs/claims.ts: FOR UPDATE SKIP LOCKED, so workers never
 * share one): a fresh claim token, and `due_at` moved to the lease's end, past which another worker
 * may take the execution over (its holder died). Across projects, or in the one project `projectId`
 * names (on Citus); only new executions with `starts`.
 */
export function claimDue(db: Queryable, options: { limit: number; leaseSeconds: number; claimedBy: number; projectId?: string; starts?: boolean }): Promise<Claimed[]> {
  const { starts, ...claim } = options;
  return claimDueOf<Claimed>(db, starts ? START_QUEUE : EXECUTION_QUEUE, {
    ...claim,
    set: (bind) => `claim = ${bind(randomUUID())}`,
    returning: 'x.project_id, x.id, x.workflow_id, x.workflow_version, x.claim',
  });
}

/** The projects with due executions, the project of the oldest first (src/jobs/project-rotation.queries.ts). */
export const dueProjects = (db: Queryable, scan: number, starts = false) => dueProjectsOf(db, starts ? START_QUEUE : EXECUTION_QUEUE, scan);

/**
 * When a batch's executions are of one project (always on Citus, whose claims take one project at
 * a time), the project as `$3` for the statements below to name in every table they touch: Citus
 * then runs them on the project's shard alone. Without it a statement runs on every shard and holds
 * a lock on each until its transaction ends, and every other step transaction (the start lane's
 * too) waits for it.
 */
function oneProject(claimed: Pick<Claimed, 'project_id'>[]): { is: (alias: string) => string; params: string[] } {
  const projects = new Set(claimed.map((c) => c.project_id));
  if (projects.size !== 1) return { is: () => '', params: [] };
  return { is: (alias) => ` AND ${alias}.project_id = $3::uuid`, params: [...projects] };
}

/**
 * Opens a step transaction: locks the executions whose claim is still ours (one missing from the
 * answer was cancelled or taken over), renews their lease, and reads each contact as it is now.
 */
export async function lockClaimed(tx: Queryable, claimed: Claimed[], leaseSeconds: number): Promise<LockedExecution[]> {
  const project = oneProject(claimed);
  return tx.query<LockedExecution>(
    `UPDATE workflow_executions x SET due_at = now() + make_interval(secs => $2)
     FROM jsonb_to_recordset($1::jsonb) AS k(project_id uuid, id uuid, claim uuid), contacts c
     WHERE x.project_id = k.project_id AND x.id = k.id AND x.claim = k.claim AND x.status IN ('RUNNING', 'WAITING')
       AND c.project_id = x.project_id AND c.id = x.contact_id${project.is('x')}${project.is('c')}
     RETURNING x.*, c.email AS contact_email, c.subscribed AS contact_subscribed, c.data AS contact_data,
       EXISTS (SELECT 1 FROM suppressions p WHERE p.project_id = x.project_id AND p.email = c.email${project.is('p')}) AS contact_suppressed,
       (SELECT s.attempts FROM workflow_execution_steps s
        WHERE s.project_id = x.project_id AND s.execution_id = x.id AND s.step_id = x.current_step_id AND s.status = 'RUNNING'${project.is('s')}) AS current_attempts`,
    [JSON.stringify(claimed.map(({ project_id, id, claim }) => ({ project_id, id, claim }))), leaseSeconds, ...project.params],
  );
}

/**
 * Committed just before a WEBHOOK request leaves: renews the lease of an execution still claimed by
 * us and counts the call as an attempt of its RUNNING step. False (nothing written, no call): the
 * execution was cancelled or taken over. An interruption before this point is not an attempt.
 */
export async function startCall(db: Queryable, claimed: Claimed, leaseSeconds: number): Promise<boolean> {
  const rows = await db.query(
    `WITH x AS (
       UPDATE workflow_executions SET due_at = now() + make_interval(secs => $4)
       WHERE project_id = $1 AND id = $2 AND claim = $3 AND status = 'RUNNING'
       RETURNING project_id, id, current_step_id
     )
     UPDATE workflow_execution_steps s SET attempts = s.attempts + 1
     FROM x WHERE s.project_id = x.project_id AND s.execution_id = x.id AND s.step_id = x.current_step_id AND s.status = 'RUNNING'
     RETURNING s.attempts`,
    [claimed.project_id, claimed.id, claimed.claim, leaseSeconds],
  );
  return rows.length > 0;
}

/** The executions dead worker instances held fall due now, for the live workers to take over. */
export const releaseExecutionsOf = (db: Queryable, instances: number[]) => releaseClaimsOf(db, EXECUTION_QUEUE, instances);

/** One step record to write: new, or the update of a WAITING or RUNNING one. */
export type StepRecordWrite = {
  step_id: string;
  step_type: string;
  status: 'RUNNING' | 'WAITING' | 'COMPLETED' | 'FAILED';
  output: unknown;
  error: string | null;
  started_at: string;
  completed_at: string | null;
};

export type ExecutionState = {
  status: ExecutionStatus;
  currentStepId: string | null;
  /** WAITING: seconds until the timer (null: until an event). */
  waitSeconds: number | null;
  /** WAITING on a WAIT_FOR_EVENT: the awaited name; a new wait also resets when it began. */
  waitEventName: string | null;
  waitBegins: boolean;
  exitReason: string | null;
  error: string | null;
};

/** The outcome of one execution's steps in a transaction. */
export type Progress = { claimed: Claimed; records: StepRecordWrite[]; state: ExecutionState };

/**
 * Commits a step transaction's outcome in one statement, for every execution it advanced: the step
 * records, then each execution's new state. RUNNING keeps the claim (the worker goes on, e.g. with
 * a WEBHOOK call); WAITING and the finished states release it. The time comes from the `clock` CTE,
 * and a timer's end is added to it in UTC (timestamp + interval is immutable, timestamptz + interval
 * is not): Citus refuses a non-immutable expression inside CASE in a write.
 */
export async function saveProgress(tx: Queryable, progress: Progress[]): Promise<void> {
  if (progress.length === 0) return;
  const project = oneProject(progress.map((p) => p.claimed));
  const records = progress.flatMap((p) => p.records.map((r) => ({ ...r, project_id: p.claimed.project_id, execution_id: p.claimed.id })));
  const states = progress.map(({ claimed, state }) => ({
    project_id: claimed.project_id,
    id: claimed.id,
    claim: claimed.claim,
    status: state.status,
    current_step_id: state.currentStepId,
    wait_seconds: state.waitSeconds,
    wait_event_name: state.waitEventName,
    wait_begins: state.waitBegins,
    exit_reason: state.exitReason,
    error: state.error,
  }));
  await tx.query(
    `WITH clock AS MATERIALIZED (
       -- A timer runs from now, after the walk, not from the transaction's start: a DELAY waits its
       -- whole time after its step began, however long the transaction took to get there.
       SELECT now() AS now, clock_timestamp() AT TIME ZONE 'UTC' AS utc
     ), records AS (
       INSERT INTO workflow_execution_steps AS s (project_id, execution_id, step_id, step_type, status, output, error, started_at, completed_at, attempts)
       SELECT r.project_id, r.execution_id, r.step_id, r.step_type, r.status, r.output, r.error, r.started_at, r.completed_at,
         CASE WHEN r.status = 'RUNNING' THEN 0 ELSE 1 END
       FROM jsonb_to_recordset($1::jsonb) AS r(project_id uuid, execution_id uuid, step_id uuid, step_type text, status text, output jsonb,
         error text, started_at timestamptz, completed_at timestamptz)
       ON CONFLICT (project_id, execution_id, step_id) DO UPDATE SET
         status = excluded.status,
         output = coalesce(excluded.output, s.output),
         error = excluded.error,
         completed_at = excluded.completed_at
     )
     UPDATE workflow_executions x SET
       status = n.status,
       current_step_id = n.current_step_id,
       due_at = CASE WHEN n.status = 'RUNNING' THEN x.due_at
                     WHEN n.status = 'WAITING' AND n.wait_seconds IS NOT NULL THEN (clock.utc + make_interval(secs => n.wait_seconds)) AT TIME ZONE 'UTC' END,
       claim = CASE WHEN n.status = 'RUNNING' THEN x.claim END,
       wait_event_name = n.wait_event_name,
       wait_started_at = CASE WHEN n.wait_begins THEN clock.now ELSE x.wait_started_at END,
       resume_event_id = CASE WHEN n.wait_begins THEN NULL ELSE x.resume_event_id END,
       exit_reason = n.exit_reason,
       error = n.error,
       completed_at = CASE WHEN n.status IN ('COMPLETED', 'EXITED', 'FAILED') THEN clock.now END,
       updated_at = clock.now
     FROM jsonb_to_recordset($2::jsonb) AS n(project_id uuid, id uuid, claim uuid, status text, current_step_id uuid, wait_seconds float8,
       wait_event_name text, wait_begins boolean, exit_reason text, error text), clock
     WHERE x.project_id = n.project_id AND x.id = n.id AND x.claim = n.claim${project.is('x')}`,
    [JSON.stringify(records), JSON.stringify(states), ...project.params],
  );
}

const FIRST_EVENT_SINCE_WAIT = `SELECT id FROM events
         WHERE project_id = w.project_id AND contact_id = w.contact_id AND name = w.wait_event_name AND created_at > w.wait_started_at
         ORDER BY created_at, id LIMIT 1`;

/**
 * Resumes waits whose event is already stored: right after waits commit (an event tracked while a
 * wait's transaction was open was dispatched before the wait was visible) and, as a backstop, for
 * waits that began in the last 10 minutes (`targets` null: the sweep across projects).
 */
export async function resumeFromStoredEvents(db: Queryable, targets: Array<{ projectId: string; id: string }> | null): Promise<number> {
  if (targets?.length === 0) return 0;
  const which = targets
    ? '(w.project_id, w.id) IN (SELECT t."projectId", t.id FROM jsonb_to_recordset($1::jsonb) AS t("projectId" uuid, id uuid))'
    : "w.wait_started_at > now() - interval '10 minutes'";
  const rows = await db.query(
    `WITH found AS (
       SELECT w.project_id, w.id, ev.id AS event_id
       FROM workflow_executions w
       JOIN LATERAL (${FIRST_EVENT_SINCE_WAIT}) ev ON true
       WHERE w.status = 'WAITING' AND w.wait_event_name IS NOT NULL AND w.resume_event_id IS NULL AND w.claim IS NULL
         AND ${which}
       LIMIT 1000
     )
     UPDATE workflow_executions x SET resume_event_id = f.event_id, due_at = now(), updated_at = now()
     FROM found f
     WHERE x.project_id = f.project_id AND x.id = f.id AND x.status = 'WAITING' AND x.resume_event_id IS NULL AND x.claim IS NULL
     RETURNING x.id`,
    targets ? [JSON.stringify(targets)] : [],
  );
  return rows.length;
}

/** When the next execution falls due (a timer or a lease's end); null when nothing is scheduled. */
export const nextDueAt = (db: Queryable) => nextDueAtOf(db, EXECUTION_QUEUE);

/** A contact as a step transaction reads it (lockClaimed), for a dry run; undefined when unknown. */
export async function readContact(db: Queryable, projectId: string, contactId: string) {
  const rows = await db.query<Pick<LockedExecution, 'contact_email' | 'contact_subscribed' | 'contact_data' | 'contact_suppressed'>>(
    `SELECT c.email AS contact_email, c.subscribed AS contact_subscribed, c.data AS contact_data,
       EXISTS (SELECT 1 FROM suppressions p WHERE p.project_id = c.project_id AND p.email = c.email) AS contact_suppressed
     FROM contacts c WHERE c.project_id = $1 AND c.id = $2`,
    [projectId, contactId],
  );
  return rows[0];
}
