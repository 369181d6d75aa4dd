-- GET /contacts/{id}/executions lists one contact's executions of every workflow, newest first
-- (docs/decisions/workflows.md, "A contact's executions"): an index probe instead of a scan of the
-- project's executions.
CREATE INDEX workflow_executions_contact_idx ON workflow_executions (project_id, contact_id, started_at DESC, id DESC);
