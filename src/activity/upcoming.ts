import { findScheduledCampaigns } from '../campaigns/campaigns.queries.ts';
import type { Queryable } from '../db/index.ts';
import type { UpcomingItem, UpcomingSource } from '../deps.ts';
import { findWaitingExecutions } from '../workflows/executions.queries.ts';

/** What every source (a Capability's `upcoming`, src/modules.ts) has due, soonest first, at most `limit`. */
export async function findUpcoming(sources: readonly UpcomingSource[], db: Queryable, projectId: string, until: Date, limit: number): Promise<UpcomingItem[]> {
  const items: UpcomingItem[] = [];
  for (const source of sources) items.push(...(await source(db, projectId, until, limit)));
  return items.sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id)).slice(0, limit);
}

/** Scheduled campaigns (migration 0012): status SCHEDULED, by scheduled_for. */
export const scheduledCampaigns: UpcomingSource = async (db, projectId, until, limit) =>
  (await findScheduledCampaigns(db, projectId, until, limit)).map((row) => ({
    type: 'campaign.scheduled',
    at: new Date(row.scheduled_for).toISOString(),
    id: row.id,
    name: row.name,
    contact: null,
    data: { recipients: row.total_recipients },
  }));

/** Workflow executions waiting on a timer (migration 0013): a DELAY, or a WAIT_FOR_EVENT's timeout. */
export const waitingExecutions: UpcomingSource = async (db, projectId, until, limit) =>
  (await findWaitingExecutions(db, projectId, until, limit)).map((row) => ({
    type: 'workflow.waiting',
    at: new Date(row.due_at).toISOString(),
    id: row.workflow_id,
    name: row.name,
    contact: { id: row.contact_id, email: row.email },
    data: { executionId: row.execution_id, stepId: row.step_id, stepType: row.step_type, waitingFor: row.wait_event_name },
  }));
