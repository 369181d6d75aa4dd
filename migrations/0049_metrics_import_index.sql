-- /metrics reads the depth of the import queue (docs/metrics.md): the open import jobs, from a small
-- partial index rather than a scan of every contact job ever run.
CREATE INDEX contact_jobs_open_imports_idx ON contact_jobs (project_id, created_at) WHERE type = 'import' AND status IN ('queued', 'running');
