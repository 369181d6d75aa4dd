-- Mail streams (docs/streams.md): every record is transactional or marketing, derived from what
-- made it, so no path that makes records (the API, SMTP submission, workflows, a campaign's
-- INSERT … SELECT) can forget it: marketing for campaign records and MARKETING content, the rest
-- transactional. Stored, so the delivery worker's claim and the analytics read it like any column;
-- it never changes after the insert, so the hand-off statement stays an in-place (HOT) update.
ALTER TABLE emails ADD COLUMN stream text GENERATED ALWAYS AS (
  CASE WHEN source_type = 'CAMPAIGN' OR content_type = 'MARKETING' THEN 'marketing' ELSE 'transactional' END
) STORED NOT NULL;

-- The transactional lane of the delivery worker claims only transactional due records, however
-- many marketing records are due before them: a small index of its own (only unfinished rows).
CREATE INDEX emails_due_transactional_idx ON emails (next_attempt_at) WHERE status IN ('QUEUED', 'SENDING') AND stream = 'transactional';
