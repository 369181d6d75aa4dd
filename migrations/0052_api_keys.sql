-- Named secret keys (docs/security.md): besides the project's own key pair, any number of secret keys
-- with a scope ('full', or 'sending': /v1/send, /v1/track, /v1/verify and SMTP submission only) and
-- an optional list of sender domains. Only the key's SHA-256 is kept: the key is shown once, at
-- creation. The key itself carries its project's id, so a lookup names its project and the
-- (project_id, key_hash) index finds it. A reference table (src/db/distribution.ts), like projects:
-- any node checks a key; it is written when a key is created or revoked, and last_used_at at most
-- once a minute per key and process.
CREATE TABLE api_keys (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  scope text NOT NULL CHECK (scope IN ('full', 'sending')),
  sender_domains text[] NOT NULL DEFAULT '{}',
  key_hash text NOT NULL,
  -- The key's first characters, so a list can tell keys apart without holding them.
  key_start text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  PRIMARY KEY (project_id, id),
  CONSTRAINT api_keys_hash_key UNIQUE (project_id, key_hash)
);
