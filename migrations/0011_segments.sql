-- Segments and the condition compiler (api.md Segment, Segments; contract §4, §10;
-- docs/decisions/segments.md).

CREATE TABLE segments (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  description text,
  type text NOT NULL DEFAULT 'DYNAMIC' CHECK (type IN ('DYNAMIC', 'STATIC')),
  -- The condition tree of a DYNAMIC segment (contract §4); NULL for STATIC.
  condition jsonb,
  track_membership boolean NOT NULL DEFAULT false,
  -- The cached count (api.md: refreshed by a background job, not computed per request).
  member_count int NOT NULL DEFAULT 0,
  counted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  CHECK ((type = 'DYNAMIC') = (condition IS NOT NULL))
);
CREATE INDEX segments_project_created_idx ON segments (project_id, created_at, id);
-- The background refresh takes the segments whose count is oldest first, across projects.
CREATE INDEX segments_counted_idx ON segments (counted_at NULLS FIRST);

-- The members of a STATIC segment, and the last computed membership of a tracked DYNAMIC one
-- (POST /segments/{id}/compute diffs the live condition against it).
CREATE TABLE segment_members (
  project_id uuid NOT NULL,
  segment_id uuid NOT NULL,
  contact_id uuid NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, segment_id, contact_id),
  FOREIGN KEY (project_id, segment_id) REFERENCES segments (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, contact_id) REFERENCES contacts (project_id, id) ON DELETE CASCADE
);
-- Deleting a contact cascades here; without this index each delete would scan the table.
CREATE INDEX segment_members_contact_idx ON segment_members (project_id, contact_id);

-- `data.<key> within / olderThan` compare a stored date string with now(). A cast of a string that
-- is not a date raises an error, which would fail the whole audience: this returns NULL instead.
-- A value without an offset is read as UTC, whatever the session's TimeZone.
CREATE FUNCTION mailroom_try_timestamptz(value text) RETURNS timestamptz
  LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
  SET TimeZone TO 'UTC'
AS $$
BEGIN
  RETURN value::timestamptz;
EXCEPTION WHEN others THEN
  RETURN NULL;
END
$$;
