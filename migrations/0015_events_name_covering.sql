-- Event filters of audiences (contract §4 `event.<name>` / `email.<activity>`, issue 5's bar: a
-- segment count with an event filter over 1M contacts and 5M events under 500 ms on PostgreSQL).
--
-- An event filter is `EXISTS (… events e WHERE e.project_id = $p AND e.name = $n [AND e.created_at
-- window] AND e.contact_id = c.id)`; over a whole project the planner runs it as a hash semi-join
-- built from the events of that name. With contact_id in the (project_id, name, created_at) index
-- that build is an index-only scan instead of one heap fetch per event: measured over 5M events,
-- 83k matching, the count went from ~600 ms to ~190 ms (docs/decisions/segments.md).
--
-- This replaces events_project_name_idx rather than adding an index, so /v1/track still maintains
-- three indexes on events; each entry of this one is 16 bytes wider. Same name, same key order:
-- GET /events?name= keeps using it.
CREATE INDEX events_project_name_contact_idx ON events (project_id, name, created_at DESC, id DESC) INCLUDE (contact_id);
DROP INDEX events_project_name_idx;
ALTER INDEX events_project_name_contact_idx RENAME TO events_project_name_idx;
