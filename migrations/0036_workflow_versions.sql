-- Workflow versions (docs/workflow-versions.md): every change of an enabled workflow's steps or
-- transitions makes a new version; an execution runs to its end on the version it started on.
-- The live tables (workflow_steps, workflow_transitions) always hold the newest version's graph;
-- each version's graph is kept here as JSON, so older ones stay readable and runnable.

-- The newest version. Workflows made before versions existed are on version 1; their snapshot row is
-- written from the live graph before their first change (src/workflows/versions.ts).
ALTER TABLE workflows ADD COLUMN version integer NOT NULL DEFAULT 1;

CREATE TABLE workflow_versions (
  project_id uuid NOT NULL,
  workflow_id uuid NOT NULL,
  version integer NOT NULL,
  -- Steps and transitions as the API shows them (Step, Transition), in creation order.
  steps jsonb NOT NULL,
  transitions jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Who made the change: a dashboard user's email, or 'API key'.
  created_by text,
  PRIMARY KEY (project_id, workflow_id, version),
  FOREIGN KEY (project_id, workflow_id) REFERENCES workflows (project_id, id) ON DELETE CASCADE
);

-- The version an execution started on (and runs to its end on).
ALTER TABLE workflow_executions ADD COLUMN workflow_version integer NOT NULL DEFAULT 1;
