-- Template history (docs/templates.md): every save that changes a template's content keeps the
-- content it then had, numbered from 1 per template, with who saved it and when. Restoring a
-- version saves its content again as the newest version.

CREATE TABLE template_versions (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  template_id uuid NOT NULL,
  version integer NOT NULL,
  subject text NOT NULL,
  body text NOT NULL,
  format text NOT NULL CHECK (format IN ('html', 'mjml', 'visual')),
  source text,
  editor_state jsonb,
  -- The signed-in user who saved it; NULL when an API key did. No foreign key: a version outlives
  -- its author's account.
  created_by uuid,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, template_id, version),
  FOREIGN KEY (project_id, template_id) REFERENCES templates (project_id, id) ON DELETE CASCADE
);

-- Templates saved before history existed start it with their current content as version 1.
INSERT INTO template_versions (project_id, template_id, version, subject, body, format, source, editor_state, created_at)
SELECT project_id, id, 1, subject, body, format, source, editor_state, updated_at FROM templates;
