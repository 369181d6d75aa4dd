-- The suppression list API (contract §6): addresses added by hand ('manual'), the email record that
-- put an address on the list (a hard bounce or a complaint), and the listing's order, newest first.
ALTER TABLE suppressions DROP CONSTRAINT suppressions_reason_check;
ALTER TABLE suppressions ADD CONSTRAINT suppressions_reason_check CHECK (reason IN ('hard_bounce', 'complaint', 'manual'));
ALTER TABLE suppressions ADD COLUMN email_id uuid;
CREATE INDEX suppressions_created_idx ON suppressions (project_id, created_at DESC, email DESC);
