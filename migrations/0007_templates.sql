-- Templates (api.md Template, Templates; contract §5).

CREATE TABLE templates (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  description text,
  subject text NOT NULL,
  body text NOT NULL,
  from_email text NOT NULL,
  from_name text,
  reply_to text,
  type text NOT NULL DEFAULT 'MARKETING' CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
-- Offset listing sorts by createdAt (default), updatedAt or name within a project. Names sort
-- case-insensitively in the C collation, so the order is the same on every server's locale.
CREATE INDEX templates_project_created_idx ON templates (project_id, created_at, id);
CREATE INDEX templates_project_updated_idx ON templates (project_id, updated_at, id);
CREATE INDEX templates_project_name_idx ON templates (project_id, (lower(name) COLLATE "C"), id);
