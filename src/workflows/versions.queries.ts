import type { Queryable } from '../db/index.ts';
import type { Step, Transition } from './workflows.schemas.ts';

/** A stored version: its graph as the API shows it (docs/workflow-versions.md). */
export type VersionRow = {
  version: number;
  steps: Step[];
  transitions: Transition[];
  created_at: Date | string;
  created_by: string | null;
};

// The live graph as JSON, in the shapes of the API's Step and Transition, in creation order.
const LIVE_STEPS = `(SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'type', type, 'name', name, 'config', config, 'createdAt', created_at) ORDER BY created_at, id), '[]'::jsonb)
   FROM workflow_steps WHERE project_id = $1 AND workflow_id = $2)`;
const LIVE_TRANSITIONS = `(SELECT coalesce(jsonb_agg(jsonb_build_object('id', id, 'fromStepId', from_step_id, 'toStepId', to_step_id, 'branch', branch) ORDER BY created_at, id), '[]'::jsonb)
   FROM workflow_transitions WHERE project_id = $1 AND workflow_id = $2)`;

/**
 * Stores the live graph as version `version`: `keep` leaves an existing row as it is (the snapshot
 * of a workflow made before versions existed, taken before its first change), `replace` rewrites
 * it (a version no execution has used yet).
 */
export async function snapshotLiveGraph(
  db: Queryable,
  projectId: string,
  workflowId: string,
  version: number,
  createdBy: string | null,
  existing: 'keep' | 'replace',
): Promise<void> {
  const onConflict =
    existing === 'keep'
      ? 'DO NOTHING'
      : 'DO UPDATE SET steps = excluded.steps, transitions = excluded.transitions, created_at = excluded.created_at, created_by = excluded.created_by';
  await db.query(
    `INSERT INTO workflow_versions (project_id, workflow_id, version, steps, transitions, created_by)
     SELECT $1, $2, $3, ${LIVE_STEPS}, ${LIVE_TRANSITIONS}, $4
     ON CONFLICT (project_id, workflow_id, version) ${onConflict}`,
    [projectId, workflowId, version, createdBy],
  );
}

/** Whether any execution (of any status) started on the version: its graph must then stay as it is. */
export async function versionUsed(db: Queryable, projectId: string, workflowId: string, version: number): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM workflow_executions WHERE project_id = $1 AND workflow_id = $2 AND workflow_version = $3 LIMIT 1', [projectId, workflowId, version]);
  return rows.length > 0;
}

export async function setWorkflowVersion(db: Queryable, projectId: string, workflowId: string, version: number): Promise<void> {
  await db.query('UPDATE workflows SET version = $3, updated_at = now() WHERE project_id = $1 AND id = $2', [projectId, workflowId, version]);
}

export async function findVersion(db: Queryable, projectId: string, workflowId: string, version: number): Promise<VersionRow | undefined> {
  const rows = await db.query<VersionRow>(
    'SELECT version, steps, transitions, created_at, created_by FROM workflow_versions WHERE project_id = $1 AND workflow_id = $2 AND version = $3',
    [projectId, workflowId, version],
  );
  return rows[0];
}

/** Every version, newest first, with its RUNNING and WAITING executions counted. */
export async function listVersions(db: Queryable, projectId: string, workflowId: string) {
  return db.query<VersionRow & { running: number; waiting: number }>(
    `SELECT v.version, v.steps, v.transitions, v.created_at, v.created_by,
            coalesce(x.running, 0)::int AS running, coalesce(x.waiting, 0)::int AS waiting
     FROM workflow_versions v
     LEFT JOIN (
       SELECT workflow_version, count(*) FILTER (WHERE status = 'RUNNING') AS running, count(*) FILTER (WHERE status = 'WAITING') AS waiting
       FROM workflow_executions
       WHERE project_id = $1 AND workflow_id = $2 AND status IN ('RUNNING', 'WAITING')
       GROUP BY workflow_version
     ) x ON x.workflow_version = v.version
     WHERE v.project_id = $1 AND v.workflow_id = $2
     ORDER BY v.version DESC`,
    [projectId, workflowId],
  );
}

/**
 * Restore: the live graph becomes a stored version's. The TRIGGER step stays (its id is the same in
 * every version); the other steps and every transition are replaced, keeping their ids, so a trace
 * recorded on any version still names the steps it shows.
 */
export async function replaceLiveGraph(tx: Queryable, projectId: string, workflowId: string, steps: Step[], transitions: Transition[]): Promise<void> {
  await tx.query('DELETE FROM workflow_transitions WHERE project_id = $1 AND workflow_id = $2', [projectId, workflowId]);
  await tx.query("DELETE FROM workflow_steps WHERE project_id = $1 AND workflow_id = $2 AND type <> 'TRIGGER'", [projectId, workflowId]);
  const others = steps.filter((step) => step.type !== 'TRIGGER');
  await tx.query(
    `INSERT INTO workflow_steps (project_id, workflow_id, id, type, name, config, created_at)
     SELECT $1, $2, s.id, s.type, s.name, s.config, s."createdAt"
     FROM jsonb_to_recordset($3::jsonb) AS s(id uuid, type text, name text, config jsonb, "createdAt" timestamptz)`,
    [projectId, workflowId, JSON.stringify(others)],
  );
  // Created in the stored order, so the live graph lists them as the version did.
  await tx.query(
    `INSERT INTO workflow_transitions (project_id, workflow_id, id, from_step_id, to_step_id, branch, created_at)
     SELECT $1, $2, t.id, t."fromStepId", t."toStepId", t.branch, now() + make_interval(secs => t.ord / 1000000.0)
     FROM jsonb_to_recordset($3::jsonb) AS t(id uuid, "fromStepId" uuid, "toStepId" uuid, branch text, ord int)`,
    [projectId, workflowId, JSON.stringify(transitions.map((t, ord) => ({ ...t, ord })))],
  );
}

/** The email of a dashboard user, for a version's `createdBy`. */
export async function userEmail(db: Queryable, userId: string): Promise<string | null> {
  const rows = await db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId]);
  return rows[0]?.email ?? null;
}
