-- A member invited by an address that has no account yet (docs/decisions/accounts.md, "Invitations"):
-- mailed an invitation, and made a member with this role once an account confirms the address.
-- A reference table on Citus, as project_members is: it is read by address, across projects.
CREATE TABLE project_invitations (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, email)
);
CREATE INDEX project_invitations_email_idx ON project_invitations (email);
