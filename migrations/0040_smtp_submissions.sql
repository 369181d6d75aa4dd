-- Messages received over SMTP submission (docs/smtp.md): the client's MIME, kept so delivery sends
-- it as the client wrote it, with our DKIM signature added. `client_message_id` holds the client's
-- Message-ID for IDEMPOTENCY_TTL_HOURS (a resubmission within it is accepted without a second send;
-- an older row's is cleared when the same Message-ID comes again).
CREATE TABLE smtp_submissions (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  client_message_id text,
  raw bytea NOT NULL,
  -- The email records made for its recipients, for the answer to a repeated submission.
  email_ids uuid[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE UNIQUE INDEX smtp_submissions_message_id_key ON smtp_submissions (project_id, client_message_id);

-- The submission whose MIME a record sends; NULL for every record built from its own content.
ALTER TABLE emails ADD COLUMN submission_id uuid;
