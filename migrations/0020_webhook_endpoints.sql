-- Webhooks to the customer's endpoints (contract §14; docs/decisions/webhook-endpoints.md).

CREATE TABLE webhook_endpoints (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  url text NOT NULL,
  -- Exact event names and families (`email.*`, `*`).
  events text[] NOT NULL,
  description text,
  enabled boolean NOT NULL DEFAULT true,
  -- Why the service disabled it ('gone': a 410; 'failing': every delivery failed for 5 days); NULL
  -- when enabled or disabled by the user.
  disabled_reason text,
  -- `whsec_…`: kept readable, since every delivery is signed with it.
  secret text NOT NULL,
  -- The secret before the last rotation, which signs beside the new one until previous_secret_until.
  previous_secret text,
  previous_secret_until timestamptz,
  -- The first failed attempt since the last successful one; NULL while deliveries succeed.
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);

-- One per event and endpoint; `id` is the webhook-id, the same on every try.
CREATE TABLE webhook_messages (
  project_id uuid NOT NULL,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  endpoint_id uuid NOT NULL,
  event_id uuid NOT NULL,
  type text NOT NULL,
  -- The body's `{ type, timestamp, data }`, fixed when the event is fanned out, so every try sends
  -- the same body even after the contact changed or was deleted.
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Attempts started, ever (numbers the attempts); retries is the position in the retry schedule,
  -- reset by a replay.
  attempts int NOT NULL DEFAULT 0,
  retries int NOT NULL DEFAULT 0,
  -- pending: when it may be claimed. A claim moves it to the end of the claim's lease, so a worker
  -- that dies mid-delivery leaves the message due again (same id) when the lease ends.
  next_attempt_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  UNIQUE (project_id, endpoint_id, event_id),
  FOREIGN KEY (project_id, endpoint_id) REFERENCES webhook_endpoints (project_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_messages_due_idx ON webhook_messages (project_id, endpoint_id, next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_messages_log_idx ON webhook_messages (project_id, endpoint_id, created_at DESC, id DESC);

CREATE TABLE webhook_attempts (
  project_id uuid NOT NULL,
  message_id uuid NOT NULL,
  attempt int NOT NULL,
  at timestamptz NOT NULL,
  -- NULL when no answer came (refused target, timeout, network error: `response` says which).
  status_code int,
  duration_ms int NOT NULL,
  -- The first 1 KB of the answer's body.
  response text NOT NULL DEFAULT '',
  PRIMARY KEY (project_id, message_id, attempt),
  FOREIGN KEY (project_id, message_id) REFERENCES webhook_messages (project_id, id) ON DELETE CASCADE
);
