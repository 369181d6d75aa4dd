import type { Queryable } from '../db/index.ts';

/**
 * Something due in the future (GET /activity/upcoming): a scheduled campaign, a workflow execution
 * waiting on a step. `id` and `name` are the campaign's or the workflow's; `data` holds the rest.
 */
export type UpcomingItem = {
  type: string;
  at: string;
  id: string;
  name: string;
  contact: { id: string; email: string } | null;
  data: Record<string, unknown>;
};

/** Items due no later than `until`, soonest first, at most `limit`. */
export type UpcomingSource = (db: Queryable, projectId: string, until: Date, limit: number) => Promise<UpcomingItem[]>;

/** What every source (a Capability's `upcoming`, src/modules.ts) has due, soonest first, at most `limit`. */
export async function findUpcoming(sources: readonly UpcomingSource[], db: Queryable, projectId: string, until: Date, limit: number): Promise<UpcomingItem[]> {
  const items: UpcomingItem[] = [];
  for (const source of sources) items.push(...(await source(db, projectId, until, limit)));
  return items.sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id)).slice(0, limit);
}

/** Scheduled campaigns (migration 0012): status SCHEDULED, by scheduled_for. */
export const scheduledCampaigns: UpcomingSource = async (db, projectId, until, limit) => {
  const rows = await db.query<{ id: string; name: string; scheduled_for: Date; total_recipients: number }>(
    `SELECT id, name, scheduled_for, total_recipients FROM campaigns
     WHERE project_id = $1 AND status = 'SCHEDULED' AND scheduled_for <= $2
     ORDER BY scheduled_for, id LIMIT $3`,
    [projectId, until.toISOString(), limit],
  );
  return rows.map((row) => ({
    type: 'campaign.scheduled',
    at: new Date(row.scheduled_for).toISOString(),
    id: row.id,
    name: row.name,
    contact: null,
    data: { recipients: row.total_recipients },
  }));
};

/** Workflow executions waiting on a timer (migration 0013): a DELAY, or a WAIT_FOR_EVENT's timeout. */
export const waitingExecutions: UpcomingSource = async (db, projectId, until, limit) => {
  const rows = await db.query<{
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
  return rows.map((row) => ({
    type: 'workflow.waiting',
    at: new Date(row.due_at).toISOString(),
    id: row.workflow_id,
    name: row.name,
    contact: { id: row.contact_id, email: row.email },
    data: { executionId: row.execution_id, stepId: row.step_id, stepType: row.step_type, waitingFor: row.wait_event_name },
  }));
};
