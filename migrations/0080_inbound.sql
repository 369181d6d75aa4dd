-- Inbound mail (docs/inbound.md): a verified domain with `inbound` on accepts mail at any of its
-- addresses on the inbound listener. Each message is kept whole (`raw`, at most
-- SMTP_MAX_MESSAGE_BYTES) with what the API shows of it parsed once, so any process serves it;
-- rows older than INBOUND_RETENTION_DAYS are removed by the hourly cleanup.
ALTER TABLE domains ADD COLUMN inbound boolean NOT NULL DEFAULT false;

CREATE TABLE inbound_messages (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  -- The sender's contact (From:, else the envelope sender); no key: the contact may be deleted since.
  contact_id uuid,
  -- The Message-ID header as written (angle brackets kept), or one made up when there is none.
  message_id text NOT NULL,
  mail_from text NOT NULL,
  from_address text NOT NULL,
  from_name text,
  -- The envelope recipients of this project; the To and Cc headers as written.
  recipients text[] NOT NULL,
  to_header text[] NOT NULL DEFAULT '{}',
  cc_header text[] NOT NULL DEFAULT '{}',
  subject text,
  text_body text,
  html text,
  headers jsonb NOT NULL DEFAULT '{}',
  attachments jsonb NOT NULL DEFAULT '[]',
  in_reply_to text,
  -- Our email record this message answers (In-Reply-To or References naming its Message-ID).
  email_id uuid,
  size integer NOT NULL,
  raw bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX inbound_messages_project_created_idx ON inbound_messages (project_id, created_at DESC, id DESC);
CREATE INDEX inbound_messages_project_email_idx ON inbound_messages (project_id, email_id) WHERE email_id IS NOT NULL;
CREATE INDEX inbound_messages_project_contact_idx ON inbound_messages (project_id, contact_id, created_at DESC);
CREATE INDEX inbound_messages_created_idx ON inbound_messages (created_at);

-- Each (Message-ID, recipient) is received once per project: a sender that retries after a lost
-- answer, or a message that reaches two listening workers, is stored and announced once.
CREATE TABLE inbound_receipts (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  message_id text NOT NULL,
  recipient text NOT NULL,
  inbound_id uuid NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, message_id, recipient)
);
CREATE INDEX inbound_receipts_created_idx ON inbound_receipts (created_at);
