-- TOTP two-factor sign-in (docs/security.md). users is a reference table on Citus: the columns
-- reach every node. totp_secret is sealed by src/auth/secrets.ts; it is set at enrolment start and
-- counts only once totp_enabled_at is set (the first code confirmed). Recovery codes are stored as
-- SHA-256 hashes; a used one is removed from the array.
ALTER TABLE users ADD COLUMN totp_secret text;
ALTER TABLE users ADD COLUMN totp_enabled_at timestamptz;
ALTER TABLE users ADD COLUMN totp_recovery_hashes text[] NOT NULL DEFAULT '{}';
