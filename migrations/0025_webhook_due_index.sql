-- The webhook claim reads due messages across endpoints in one index range, oldest first, instead of
-- probing every enabled endpoint (docs/decisions/webhook-endpoints.md, "Claims"). Like the event
-- dispatch table, this is the worker's queue read across projects, so it does not start with
-- project_id. Messages of a disabled endpoint have no next_attempt_at: they wait outside the range.
DROP INDEX webhook_messages_due_idx;
CREATE INDEX webhook_messages_due_idx ON webhook_messages (next_attempt_at, endpoint_id) WHERE status = 'pending';
UPDATE webhook_messages m SET next_attempt_at = NULL
FROM webhook_endpoints w
WHERE w.project_id = m.project_id AND w.id = m.endpoint_id AND NOT w.enabled AND m.status = 'pending';
