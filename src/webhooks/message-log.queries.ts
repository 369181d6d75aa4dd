import type { Queryable } from '../db/index.ts';
import { cursorTimestampSql } from '../pagination.ts';
import type { MessageStatus } from './webhooks.schemas.ts';

export type AttemptRow = { at: Date; status_code: number | null; duration_ms: number; response: string };
export type MessageRow = {
  id: string;
  type: string;
  status: MessageStatus;
  next_attempt_at: Date | null;
  created_at: Date;
  sort_key: string;
  attempts: AttemptRow[];
};

/**
 * An endpoint's messages, newest first, keyset over (created_at, id), each with its attempts in
 * order (one statement: the attempts come aggregated per message).
 */
export async function listMessages(
  db: Queryable,
  projectId: string,
  endpointId: string,
  query: { status?: MessageStatus; before?: { value: string; id: string }; limit: number },
): Promise<MessageRow[]> {
  const params: unknown[] = [projectId, endpointId, query.status ?? null, query.limit];
  let before = '';
  if (query.before) {
    params.push(query.before.value, query.before.id);
    before = 'AND (m.created_at, m.id) < ($5::timestamptz, $6::uuid)';
  }
  return db.query<MessageRow>(
    `SELECT m.id, m.type, m.status, m.next_attempt_at, m.created_at, ${cursorTimestampSql('m.created_at')} AS sort_key,
       coalesce((SELECT jsonb_agg(jsonb_build_object('at', a.at, 'status_code', a.status_code, 'duration_ms', a.duration_ms, 'response', a.response) ORDER BY a.attempt)
                 FROM webhook_attempts a WHERE a.project_id = m.project_id AND a.message_id = m.id), '[]'::jsonb) AS attempts
     FROM webhook_messages m
     WHERE m.project_id = $1 AND m.endpoint_id = $2 AND ($3::text IS NULL OR m.status = $3) ${before}
     ORDER BY m.created_at DESC, m.id DESC LIMIT $4`,
    params,
  );
}

export async function countMessages(db: Queryable, projectId: string, endpointId: string, status: MessageStatus | undefined): Promise<number> {
  const rows = await db.query<{ total: number }>(
    'SELECT count(*)::int AS total FROM webhook_messages WHERE project_id = $1 AND endpoint_id = $2 AND ($3::text IS NULL OR status = $3)',
    [projectId, endpointId, status ?? null],
  );
  return rows[0]!.total;
}

/**
 * When a replayed message is due: now, or (the endpoint disabled) not until it is enabled. Read in a
 * CTE of its own: Citus refuses now() inside CASE in a write.
 */
const DUE = `due AS MATERIALIZED (
       SELECT CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.project_id = $1 AND w.id = $2 AND w.enabled) THEN now() END AS at
     )`;

/**
 * A new attempt now, whatever the message's status: pending again at the start of the retry
 * schedule. False when the endpoint has no such message.
 */
export async function replayMessage(db: Queryable, projectId: string, endpointId: string, messageId: string): Promise<boolean> {
  const rows = await db.query(
    `WITH ${DUE}
     UPDATE webhook_messages m SET status = 'pending', retries = 0, next_attempt_at = due.at FROM due
     WHERE m.project_id = $1 AND m.endpoint_id = $2 AND m.id = $3 RETURNING m.id`,
    [projectId, endpointId, messageId],
  );
  return rows.length > 0;
}

/** Every `failed` message created in [since, until) becomes pending again, due now. */
export async function replayWindow(db: Queryable, projectId: string, endpointId: string, since: string, until: string | null): Promise<number> {
  const rows = await db.query<{ count: number }>(
    `WITH ${DUE}, again AS (
       UPDATE webhook_messages m SET status = 'pending', retries = 0, next_attempt_at = due.at FROM due
       WHERE m.project_id = $1 AND m.endpoint_id = $2 AND m.status = 'failed'
         AND m.created_at >= $3::timestamptz AND ($4::timestamptz IS NULL OR m.created_at < $4::timestamptz)
       RETURNING 1
     )
     SELECT count(*)::int AS count FROM again`,
    [projectId, endpointId, since, until],
  );
  return rows[0]!.count;
}
