-- Contact bulk and import jobs, uploaded import files, and the per-project field statistics cache
-- (api.md Contacts; contract §12; docs/decisions/contact-fields-bulk-import.md).

-- The progress of one queued contact job (bulk-subscribe, bulk-unsubscribe, bulk-delete, import).
-- The pg-boss job only carries { projectId, jobId }; everything else is here so any worker can
-- resume it and any API process can report it.
CREATE TABLE contact_jobs (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  type text NOT NULL CHECK (type IN ('bulk-subscribe', 'bulk-unsubscribe', 'bulk-delete', 'import')),
  status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
  -- Bulk jobs: the distinct contact ids asked for.
  contact_ids uuid[],
  total integer NOT NULL DEFAULT 0,
  processed integer NOT NULL DEFAULT 0,
  succeeded integer NOT NULL DEFAULT 0,
  failed integer NOT NULL DEFAULT 0,
  -- The first 100 problems: [{ id, message }] for bulk, [{ row, message }] for import.
  errors jsonb NOT NULL DEFAULT '[]'::jsonb,
  -- Why the whole job failed (a CSV without an email column, retries exhausted).
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  completed_at timestamptz,
  PRIMARY KEY (project_id, id)
);

-- An uploaded CSV, stored in the database so a worker on any machine can read it; deleted when
-- its job ends.
CREATE TABLE contact_import_files (
  project_id uuid NOT NULL,
  job_id uuid NOT NULL,
  content bytea NOT NULL,
  PRIMARY KEY (project_id, job_id),
  FOREIGN KEY (project_id, job_id) REFERENCES contact_jobs (project_id, id) ON DELETE CASCADE
);

-- GET /contacts/fields serves this instead of scanning every contact's data on each call.
-- `fields`: [{ name, type, standard, coverage }] in response order.
CREATE TABLE contact_field_stats (
  project_id uuid PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  contact_count integer NOT NULL,
  fields jsonb NOT NULL,
  computed_at timestamptz NOT NULL DEFAULT now()
);
