-- Login throttling (docs/decisions/security.md): failed log-ins counted per submitted email and per
-- client address, shared by every process. A row is forgotten an hour after its last failure.
CREATE TABLE login_failures (
  key text PRIMARY KEY,
  failures int NOT NULL,
  last_failed_at timestamptz NOT NULL
);
