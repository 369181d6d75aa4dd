-- Accounts, projects, members and the idempotency ledger (platform core).
-- Every project-owned table carries project_id first in its keys (docs/architecture.md: scale-out).

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  password_hash text NOT NULL,
  email_verified_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT users_email_key UNIQUE (email)
);

CREATE TABLE projects (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  -- Keys are shown to OWNER and ADMIN, so they are kept; lookups go through the SHA-256 hashes.
  public_key text NOT NULL,
  secret_key text NOT NULL,
  public_key_hash text NOT NULL,
  secret_key_hash text NOT NULL,
  disabled boolean NOT NULL DEFAULT false,
  disabled_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT projects_public_key_hash_key UNIQUE (public_key_hash),
  CONSTRAINT projects_secret_key_hash_key UNIQUE (secret_key_hash)
);

CREATE TABLE project_members (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_user_idx ON project_members (user_id);

-- Contract §13: a key is recorded when first accepted; status_code stays NULL while it runs.
CREATE TABLE idempotency_keys (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  key text NOT NULL,
  method text NOT NULL,
  path text NOT NULL,
  status_code integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (project_id, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
