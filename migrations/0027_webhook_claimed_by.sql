-- Which worker process holds a webhook message's claim, so the claims of a dead one are taken over
-- at once (src/jobs/instances.ts) instead of at the end of their 30 s lease, as emails and workflow
-- executions already are (0024).
ALTER TABLE webhook_messages ADD COLUMN claimed_by integer;
