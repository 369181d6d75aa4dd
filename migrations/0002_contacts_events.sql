-- Contacts and tracked events (api.md Contact, Events; contract §12).

CREATE TABLE contacts (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  -- Stored lower-cased; unique per project.
  email text NOT NULL,
  subscribed boolean NOT NULL,
  snoozed_until timestamptz,
  data jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  CONSTRAINT contacts_project_email_key UNIQUE (project_id, email)
);
-- Keyset listing by creation time (the default sort); by email uses contacts_project_email_key.
CREATE INDEX contacts_project_created_idx ON contacts (project_id, created_at, id);
-- The snooze-end job finds due contacts without scanning.
CREATE INDEX contacts_snoozed_until_idx ON contacts (snoozed_until) WHERE snoozed_until IS NOT NULL;

CREATE TABLE events (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  contact_id uuid NOT NULL,
  name text NOT NULL,
  data jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The email record an email.* event is about (api.md Events rule 3).
  email_id uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, contact_id) REFERENCES contacts (project_id, id) ON DELETE CASCADE
);
CREATE INDEX events_project_created_idx ON events (project_id, created_at DESC, id DESC);
CREATE INDEX events_project_contact_idx ON events (project_id, contact_id, created_at DESC, id DESC);
CREATE INDEX events_project_name_idx ON events (project_id, name, created_at DESC, id DESC);
