-- Warm-up schedules of sending domains (docs/streams.md, "Warm-up"): a domain may cap the
-- MARKETING mail it signs per UTC day, the cap growing day by day from the schedule's first day.
-- NULL schedule: the default one (src/domains/warmup.ts). Columns of a reference table on Citus:
-- the ALTER is propagated to every node.
ALTER TABLE domains
  ADD COLUMN warmup_enabled boolean NOT NULL DEFAULT false,
  ADD COLUMN warmup_schedule int[],
  ADD COLUMN warmup_started_on date;

-- What each domain has sent of its cap per day, shared by every worker: taken by one statement per
-- chunk (src/domains/warmup.queries.ts), serialised on the row, as send_rates. One row per domain
-- and day of its warm-up.
CREATE TABLE warmup_counts (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  domain_id uuid NOT NULL,
  day date NOT NULL,
  sent int NOT NULL,
  -- What the latest take was granted, read back by the statement that made it.
  granted int NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, domain_id, day)
);
