-- Dashboard sessions are signed tokens (src/auth/sessions.ts) that carry the generation they were
-- issued in; a password reset moves the user to the next generation, which ends every session
-- started before it (docs/decisions/administration.md). Tokens from before this column count as 0.
ALTER TABLE users ADD COLUMN session_generation int NOT NULL DEFAULT 0;
