-- Workflows: graphs of steps run per contact, durable across restarts (api.md Workflows; contract §11;
-- docs/decisions/workflows.md explains the engine state kept here).

CREATE TABLE workflows (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  description text,
  trigger_type text NOT NULL DEFAULT 'EVENT' CHECK (trigger_type IN ('EVENT', 'MANUAL')),
  -- triggerConfig.eventName of an EVENT workflow; kept (unused) while the workflow is MANUAL.
  event_name text,
  enabled boolean NOT NULL DEFAULT false,
  allow_reentry boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX workflows_project_created_idx ON workflows (project_id, created_at, id);
-- Triggering: which enabled workflows listen for an event name.
CREATE INDEX workflows_trigger_idx ON workflows (project_id, event_name) WHERE enabled AND trigger_type = 'EVENT';

CREATE TABLE workflow_steps (
  project_id uuid NOT NULL,
  workflow_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  type text NOT NULL CHECK (type IN ('TRIGGER', 'SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT')),
  name text,
  config jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, workflow_id) REFERENCES workflows (project_id, id) ON DELETE CASCADE
);
CREATE INDEX workflow_steps_workflow_idx ON workflow_steps (project_id, workflow_id, created_at, id);
-- GET /templates/{id}/usage.
CREATE INDEX workflow_steps_template_idx ON workflow_steps (project_id, (config ->> 'templateId')) WHERE type = 'SEND_EMAIL';

CREATE TABLE workflow_transitions (
  project_id uuid NOT NULL,
  workflow_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  from_step_id uuid NOT NULL,
  to_step_id uuid NOT NULL,
  -- 'yes'/'no' out of a CONDITION, 'event'/'timeout' out of a WAIT_FOR_EVENT, else NULL.
  branch text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, workflow_id) REFERENCES workflows (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, from_step_id) REFERENCES workflow_steps (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, to_step_id) REFERENCES workflow_steps (project_id, id) ON DELETE CASCADE,
  -- One edge per outcome of a step (the graph rules are checked by the service; this is the backstop).
  CONSTRAINT workflow_transitions_outcome_key UNIQUE NULLS NOT DISTINCT (project_id, from_step_id, branch)
);
CREATE INDEX workflow_transitions_workflow_idx ON workflow_transitions (project_id, workflow_id);
CREATE INDEX workflow_transitions_to_idx ON workflow_transitions (project_id, to_step_id);

CREATE TABLE workflow_executions (
  project_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  workflow_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  status text NOT NULL CHECK (status IN ('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED')),
  -- RUNNING: the step to run next. WAITING: the DELAY or WAIT_FOR_EVENT step. Finished: the last step.
  current_step_id uuid,
  context jsonb NOT NULL DEFAULT '{}'::jsonb,
  -- The triggering event (the `event` variable); NULL for a manual start.
  event_id uuid,
  event_name text,
  event_data jsonb,
  exit_reason text,
  error text,
  -- When a worker may claim the execution next: now for new work, the timer of a WAITING one, the
  -- lease end while claimed. NULL: nothing to do until an event arrives (a wait without timeout).
  due_at timestamptz,
  -- The claiming worker's token; every step commit checks it (a worker that lost its lease cannot write).
  claim uuid,
  -- WAIT_FOR_EVENT: the awaited name, when the wait began, and the event that ended it.
  wait_event_name text,
  wait_started_at timestamptz,
  resume_event_id uuid,
  started_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, workflow_id) REFERENCES workflows (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, contact_id) REFERENCES contacts (project_id, id) ON DELETE CASCADE
);
-- contract §11 re-entry: at most one RUNNING or WAITING execution per contact and workflow.
CREATE UNIQUE INDEX workflow_executions_active_key ON workflow_executions (project_id, workflow_id, contact_id)
  WHERE status IN ('RUNNING', 'WAITING');
-- Workers claim due executions across projects (like emails_due_idx): only unfinished rows.
CREATE INDEX workflow_executions_due_idx ON workflow_executions (due_at) WHERE status IN ('RUNNING', 'WAITING');
CREATE INDEX workflow_executions_list_idx ON workflow_executions (project_id, workflow_id, started_at DESC, id DESC);
-- A tracked event resumes the contact's waits for its name.
CREATE INDEX workflow_executions_waiting_idx ON workflow_executions (project_id, contact_id, wait_event_name) WHERE status = 'WAITING';
-- The sweeper's second look at recent waits for an event that slipped past them.
CREATE INDEX workflow_executions_wait_started_idx ON workflow_executions (wait_started_at) WHERE status = 'WAITING' AND wait_event_name IS NOT NULL;

-- Every (workflow, contact) that ever entered: allowReentry false admits a contact once, even under
-- concurrent triggers (the primary key decides).
CREATE TABLE workflow_entries (
  project_id uuid NOT NULL,
  workflow_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  entered_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, workflow_id, contact_id),
  FOREIGN KEY (project_id, workflow_id) REFERENCES workflows (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, contact_id) REFERENCES contacts (project_id, id) ON DELETE CASCADE
);

-- One record per step an execution reached (the graph is acyclic, so a step is reached at most once).
CREATE TABLE workflow_execution_steps (
  project_id uuid NOT NULL,
  execution_id uuid NOT NULL,
  -- No foreign key: the record outlives a deleted step.
  step_id uuid NOT NULL,
  step_type text NOT NULL,
  status text NOT NULL CHECK (status IN ('RUNNING', 'WAITING', 'COMPLETED', 'FAILED', 'CANCELLED')),
  -- Tries of a retry-safe step (WEBHOOK) that a dead worker may have left half done.
  attempts int NOT NULL DEFAULT 1,
  output jsonb,
  error text,
  started_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (project_id, execution_id, step_id),
  FOREIGN KEY (project_id, execution_id) REFERENCES workflow_executions (project_id, id) ON DELETE CASCADE
);
