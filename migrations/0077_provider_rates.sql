-- Per-provider throttles (docs/streams.md): a receiving provider (gmail, microsoft, yahoo, apple,
-- other) that defers a project's stream with 421 or 4.7.x gets that stream's mail more slowly;
-- successes raise the rate again. Shared by every worker process.
CREATE TABLE provider_rates (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  stream text NOT NULL CHECK (stream IN ('transactional', 'marketing')),
  provider text NOT NULL CHECK (provider IN ('gmail', 'microsoft', 'yahoo', 'apple', 'other')),
  -- Messages per second allowed now: halved by a deferral, raised a little by each success.
  rate double precision NOT NULL,
  -- The token bucket at that rate (one second's worth at most), as in send_rates.
  tokens double precision NOT NULL,
  refilled_at timestamptz NOT NULL,
  granted int NOT NULL DEFAULT 0,
  -- The last decrease: one per second at most, so a burst of deferrals from messages already in
  -- flight halves the rate once, not once per message.
  decreased_at timestamptz,
  PRIMARY KEY (project_id, stream, provider)
);

-- Deferrals per minute, for "deferrals in the last hour" (GET /deliverability).
CREATE TABLE provider_deferrals (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  stream text NOT NULL,
  provider text NOT NULL,
  minute timestamptz NOT NULL,
  count int NOT NULL,
  PRIMARY KEY (project_id, stream, provider, minute)
);
