-- The engine's start lane claims new executions (never claimed yet) apart from resumed ones
-- (docs/decisions/workflows.md, "Claim"): an index probe for the oldest of them, however many
-- resumptions are due before them.
CREATE INDEX workflow_executions_start_idx ON workflow_executions (due_at) WHERE status = 'RUNNING' AND claim IS NULL;
