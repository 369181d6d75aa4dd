-- The last TOTP step an account signed in with (RFC 6238 §5.2, docs/security.md): a code is
-- accepted once, and only for a step later than the last one used, so an observed code cannot be
-- replayed within its window.
ALTER TABLE users ADD COLUMN totp_last_step bigint;
