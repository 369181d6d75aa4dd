-- An OWNER can require two-factor sign-in of every member (docs/security.md): a member without it
-- is refused on the project's session requests until they enrol. API keys are not affected.
ALTER TABLE projects ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;
