-- Dashboard sessions as server-side records (docs/security.md): the signed cookie names a row here,
-- and every request checks that the row is neither ended nor expired, so logging out, "sign out
-- everywhere" and a password change end a session at once on every process. last_seen_at is
-- written at most once a minute per session. A global table (src/db/distribution.ts): a session
-- belongs to a user, not to a project.
CREATE TABLE user_sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  user_agent text NOT NULL DEFAULT '',
  ip text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);

CREATE INDEX user_sessions_user_idx ON user_sessions (user_id, last_seen_at DESC);
