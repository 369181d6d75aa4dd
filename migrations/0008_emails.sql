-- Email records, their attachments and the suppression list (contract §6; docs/decisions/sending.md).

CREATE TABLE emails (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- The email record id: returned by /v1/send, `data.emailId` on email.* events, and the local
  -- part of the Message-ID.
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  -- The recipient contact; kept (as NULL) when the contact is deleted, so sending history survives.
  contact_id uuid,
  -- Lower-cased recipient address, as stored on the contact.
  to_address text NOT NULL,
  -- The To display name given by the caller (`to: { name, email }`), if any.
  to_name text,
  from_address text NOT NULL,
  from_name text,
  reply_to text,
  -- Content stored rendered per recipient: the worker renders nothing for /v1/send. NULL for rows
  -- whose content is rendered at delivery (campaigns may fill subject/html from campaign_id).
  subject text,
  html text,
  -- The plain-text alternative generated from the HTML.
  text_body text,
  -- Custom headers of /v1/send: { name: value }, already checked for CR/LF and length.
  headers jsonb NOT NULL DEFAULT '{}'::jsonb,
  status text NOT NULL DEFAULT 'QUEUED' CHECK (status IN (
    'QUEUED', 'SENDING', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED')),
  source_type text NOT NULL DEFAULT 'TRANSACTIONAL' CHECK (source_type IN ('TRANSACTIONAL', 'CAMPAIGN', 'WORKFLOW')),
  campaign_id uuid,
  template_id uuid,
  workflow_id uuid,
  -- The template/campaign type: MARKETING adds List-Unsubscribe, HEADLESS skips tracking.
  content_type text NOT NULL DEFAULT 'TRANSACTIONAL' CHECK (content_type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
  -- The Message-ID header, `<id@sending-domain>`, fixed when the record is made; the SES webhook
  -- matches notifications by it.
  message_id text,
  -- Hand-offs tried so far (incremented at each claim).
  attempts int NOT NULL DEFAULT 0,
  -- QUEUED: when the record may be claimed (backoff after a transient failure). SENDING: the end of
  -- the claiming worker's lease; past it, recovery decides (docs/decisions/sending.md).
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  -- Committed just before the message is given to the transport: a SENDING row whose lease
  -- expired with this set may have left, so SMTP never retries it (at most once per record).
  handed_off_at timestamptz,
  -- Why the record failed, bounced or was suppressed (`error` in GET /emails/{id}).
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  delivered_at timestamptz,
  opened_at timestamptz,
  clicked_at timestamptz,
  bounced_at timestamptz,
  complained_at timestamptz,
  opens int NOT NULL DEFAULT 0,
  clicks int NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, contact_id) REFERENCES contacts (project_id, id) ON DELETE SET NULL (contact_id),
  FOREIGN KEY (project_id, template_id) REFERENCES templates (project_id, id) ON DELETE SET NULL (template_id)
);

-- Workers claim due work across all projects: QUEUED rows whose time has come and SENDING rows
-- whose lease expired. Small (only unfinished rows), and not project-first by nature.
CREATE INDEX emails_due_idx ON emails (next_attempt_at) WHERE status IN ('QUEUED', 'SENDING');
-- The SES webhook knows only the Message-ID, not the project.
CREATE INDEX emails_message_id_idx ON emails (message_id);
CREATE INDEX emails_project_created_idx ON emails (project_id, created_at DESC, id DESC);
CREATE INDEX emails_project_contact_idx ON emails (project_id, contact_id, created_at DESC);
CREATE INDEX emails_project_campaign_idx ON emails (project_id, campaign_id, status) WHERE campaign_id IS NOT NULL;

CREATE TABLE email_attachments (
  project_id uuid NOT NULL,
  email_id uuid NOT NULL,
  -- Order in the request's `attachments` array.
  position int NOT NULL,
  filename text NOT NULL,
  content_type text NOT NULL,
  -- Required for inline parts (referenced as cid:<content_id> in the HTML).
  content_id text,
  disposition text NOT NULL DEFAULT 'attachment' CHECK (disposition IN ('attachment', 'inline')),
  -- The decoded bytes.
  content bytea NOT NULL,
  PRIMARY KEY (project_id, email_id, position),
  FOREIGN KEY (project_id, email_id) REFERENCES emails (project_id, id) ON DELETE CASCADE
);

-- Addresses never sent to again (contract §6): a hard bounce or a complaint puts them here.
CREATE TABLE suppressions (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- Lower-cased address.
  email text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('hard_bounce', 'complaint')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, email)
);
