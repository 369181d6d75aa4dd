-- SEND_RATE_PER_SECOND across every worker process (docs/streams.md): one token bucket per
-- project, kept in the database, so two workers together send at the configured rate instead of
-- twice it. Taken by one statement per project and chunk of claimed records.
CREATE TABLE send_rates (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- Tokens left at refilled_at; the bucket holds at most one second's worth.
  tokens double precision NOT NULL,
  refilled_at timestamptz NOT NULL,
  -- What the latest take was granted, read back by the statement that made it.
  granted int NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id)
);
