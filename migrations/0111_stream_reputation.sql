-- Reputation per stream (docs/decisions/reputation.md): the rollup counts the messages that reached
-- the receiving side, hard bounces and complaints per stream as well, so AUTO_DISABLE can pause a
-- project's marketing mail and leave its transactional mail flowing. Counted from this migration
-- on: the 15-minute buckets before it are in email_counts only.
CREATE TABLE stream_counts (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  stream text NOT NULL CHECK (stream IN ('transactional', 'marketing')),
  bucket timestamptz NOT NULL,
  attempted bigint NOT NULL DEFAULT 0,
  bounced bigint NOT NULL DEFAULT 0,
  complained bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, stream, bucket)
);

-- Marketing mail paused for its rates, with the reason, until an OWNER resumes it.
ALTER TABLE project_reputation
  ADD COLUMN marketing_paused_at timestamptz,
  ADD COLUMN marketing_paused_reason text;
