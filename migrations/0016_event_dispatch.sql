-- Events waiting for their subscribers (workflow triggers), written in the same statement or
-- transaction as the events themselves and drained by the worker's events.dispatch job, at least
-- once (docs/decisions/contacts-and-events.md). It replaces one queue job per write: a /v1/track
-- batch costs one small insert here instead of a transaction around a pg-boss job.
CREATE TABLE event_dispatch (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  event_ids uuid[] NOT NULL,
  -- A drain holds its rows until then; a worker that dies leaves them to the next drain.
  locked_until timestamptz NOT NULL DEFAULT '-infinity'
);
