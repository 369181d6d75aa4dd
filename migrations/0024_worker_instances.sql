-- Which worker process holds a claim, so the claims of a dead one are taken over at once instead of
-- at the end of their lease (docs/decisions/sending.md, "Crashes and deploys"). A live instance holds
-- a session advisory lock on its id on PostgreSQL; the lock goes when its connection does.
CREATE TABLE worker_instances (
  id integer PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE emails ADD COLUMN claimed_by integer;
-- Times the message was sent again because a hand-off's answer never came (contract §6: at least once).
ALTER TABLE emails ADD COLUMN resends integer NOT NULL DEFAULT 0;
ALTER TABLE workflow_executions ADD COLUMN claimed_by integer;
