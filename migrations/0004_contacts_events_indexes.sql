-- Contacts and events: what the listing, subscription and event-name queries need beyond 0002
-- (issue 3; api.md Contacts, Events; contract §12). Sized for 1M contacts and 10M events a project.

-- GET /events/names: the distinct names of a project without scanning 10M events. recordEvents
-- inserts with ON CONFLICT DO NOTHING, which takes no row lock on an existing name, so a hot name
-- causes no contention. first_seen_at is informational.
CREATE TABLE event_names (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, name)
);

-- GET /contacts?subscribed=…: keyset listing (and the first page's total) by creation time within
-- one subscription state, as an index range instead of filtering the whole project.
CREATE INDEX contacts_project_subscribed_created_idx ON contacts (project_id, subscribed, created_at, id);
