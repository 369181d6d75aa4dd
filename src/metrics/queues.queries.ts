import type { Queryable } from '../db/index.ts';

/** The queues whose depth /metrics reports (docs/metrics.md). */
export const QUEUES = ['delivery', 'workflow_executions', 'webhook_messages', 'imports'] as const;
export type QueueName = (typeof QUEUES)[number];

export type QueueDepth = { queue: QueueName; depth: number; oldest_age: number };

/**
 * Each queue's unfinished items (due, scheduled for a retry, or claimed by a worker now) and the
 * earliest time one of them fell due: one read of the queue's own partial index (the one its
 * workers claim from), which holds only unfinished items. A claimed item's due time is its lease's
 * end, in the future, so the oldest age counts only what waits for a worker. Imports are counted
 * while queued or running, from their creation. Across every project, or in the one `projectId`
 * names; no project is ever read back.
 */
const STATEMENTS: Record<QueueName, string> = {
  // emails_due_idx.
  delivery: `SELECT count(*) AS depth, min(next_attempt_at) AS oldest FROM emails
             WHERE status IN ('QUEUED', 'SENDING')`,
  // workflow_executions_due_idx; a wait without a timeout has no due_at.
  workflow_executions: `SELECT count(*) AS depth, min(due_at) AS oldest FROM workflow_executions
                        WHERE status IN ('RUNNING', 'WAITING')`,
  // webhook_messages_due_idx; a disabled endpoint's messages have no next_attempt_at.
  webhook_messages: `SELECT count(*) AS depth, min(next_attempt_at) AS oldest FROM webhook_messages
                     WHERE status = 'pending'`,
  // contact_jobs_open_imports_idx (migrations/0049_metrics_import_index.sql).
  imports: `SELECT count(*) AS depth, min(created_at) AS oldest FROM contact_jobs
            WHERE type = 'import' AND status IN ('queued', 'running')`,
};

export async function queueDepths(db: Queryable, projectId?: string): Promise<QueueDepth[]> {
  return Promise.all(
    QUEUES.map(async (queue) => {
      const sql = projectId ? `${STATEMENTS[queue]} AND project_id = $1` : STATEMENTS[queue];
      const [row] = await db.query<{ depth: number; oldest: Date | string | null }>(sql, projectId ? [projectId] : []);
      const oldest = row?.oldest ? Math.max(0, (Date.now() - new Date(row.oldest).getTime()) / 1000) : 0;
      return { queue, depth: Number(row?.depth ?? 0), oldest_age: oldest };
    }),
  );
}
