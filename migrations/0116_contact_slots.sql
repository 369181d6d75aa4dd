-- A narrow typed copy of the contact data keys that segments read, for counting without reading
-- every contact's jsonb (docs/decisions/segments.md, "The narrow copy"). Each project gives up to
-- eight of its keys a slot; slot i holds the key's value typed: t<i> a string, n<i> a number,
-- k<i> its JSON kind ('s' string, 'n' number, 't' / 'f' a boolean, 'a' array, 'o' object; NULL when
-- the key is absent or JSON null). A slot is read only once `ready`: its backfill has copied every
-- contact of the project. Kept by statement triggers on contacts (PostgreSQL and the embedded
-- database); not kept on Citus, where counts read contacts.data.
CREATE TABLE contact_slot_keys (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  slot smallint NOT NULL CHECK (slot BETWEEN 1 AND 8),
  key text NOT NULL,
  ready boolean NOT NULL DEFAULT false,
  PRIMARY KEY (project_id, slot),
  CONSTRAINT contact_slot_keys_project_key UNIQUE (project_id, key)
);

CREATE TABLE contact_slots (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL,
  subscribed boolean NOT NULL,
  created_at timestamptz NOT NULL,
  t1 text,
  n1 numeric,
  k1 "char",
  t2 text,
  n2 numeric,
  k2 "char",
  t3 text,
  n3 numeric,
  k3 "char",
  t4 text,
  n4 numeric,
  k4 "char",
  t5 text,
  n5 numeric,
  k5 "char",
  t6 text,
  n6 numeric,
  k6 "char",
  t7 text,
  n7 numeric,
  k7 "char",
  t8 text,
  n8 numeric,
  k8 "char",
  -- No foreign key to contacts: a delete trigger removes a contact's row under the copy lock, so a
  -- backfill batch never copies a contact whose delete is committing.
  PRIMARY KEY (project_id, id)
);

CREATE FUNCTION mailroom_field_text(v jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN jsonb_typeof(v) = 'string' THEN v #>> '{}' END $$;

CREATE FUNCTION mailroom_field_number(v jsonb) RETURNS numeric
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN v::numeric END $$;

CREATE FUNCTION mailroom_field_kind(v jsonb) RETURNS "char"
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT CASE jsonb_typeof(v)
    WHEN 'string' THEN 's' WHEN 'number' THEN 'n' WHEN 'array' THEN 'a' WHEN 'object' THEN 'o'
    WHEN 'boolean' THEN CASE WHEN v = 'true'::jsonb THEN 't' ELSE 'f' END
  END::"char" $$;

-- Copies the written contacts of every project with slots. It first takes the project's shared
-- lock: a backfill batch takes it exclusively, so a batch reads only committed data and a write
-- that began before the slot existed has committed before the batch reads its contact.
CREATE FUNCTION mailroom_contact_slots_write() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1296516201, hashtext(p.project_id::text))
     FROM (SELECT DISTINCT project_id FROM new_rows ORDER BY project_id) p;
  INSERT INTO contact_slots AS f (project_id, id, subscribed, created_at, t1, n1, k1, t2, n2, k2, t3, n3, k3, t4, n4, k4, t5, n5, k5, t6, n6, k6, t7, n7, k7, t8, n8, k8)
    SELECT c.project_id, c.id, c.subscribed, c.created_at,
           mailroom_field_text(c.data -> m.k1), mailroom_field_number(c.data -> m.k1), mailroom_field_kind(c.data -> m.k1),
           mailroom_field_text(c.data -> m.k2), mailroom_field_number(c.data -> m.k2), mailroom_field_kind(c.data -> m.k2),
           mailroom_field_text(c.data -> m.k3), mailroom_field_number(c.data -> m.k3), mailroom_field_kind(c.data -> m.k3),
           mailroom_field_text(c.data -> m.k4), mailroom_field_number(c.data -> m.k4), mailroom_field_kind(c.data -> m.k4),
           mailroom_field_text(c.data -> m.k5), mailroom_field_number(c.data -> m.k5), mailroom_field_kind(c.data -> m.k5),
           mailroom_field_text(c.data -> m.k6), mailroom_field_number(c.data -> m.k6), mailroom_field_kind(c.data -> m.k6),
           mailroom_field_text(c.data -> m.k7), mailroom_field_number(c.data -> m.k7), mailroom_field_kind(c.data -> m.k7),
           mailroom_field_text(c.data -> m.k8), mailroom_field_number(c.data -> m.k8), mailroom_field_kind(c.data -> m.k8)
      FROM new_rows c
      JOIN (SELECT project_id,
                  max(key) FILTER (WHERE slot = 1) AS k1,
                  max(key) FILTER (WHERE slot = 2) AS k2,
                  max(key) FILTER (WHERE slot = 3) AS k3,
                  max(key) FILTER (WHERE slot = 4) AS k4,
                  max(key) FILTER (WHERE slot = 5) AS k5,
                  max(key) FILTER (WHERE slot = 6) AS k6,
                  max(key) FILTER (WHERE slot = 7) AS k7,
                  max(key) FILTER (WHERE slot = 8) AS k8
              FROM contact_slot_keys
             WHERE project_id IN (SELECT project_id FROM new_rows)
             GROUP BY project_id) m USING (project_id)
  ON CONFLICT (project_id, id) DO UPDATE SET
    subscribed = excluded.subscribed, created_at = excluded.created_at,
    t1 = excluded.t1, n1 = excluded.n1, k1 = excluded.k1,
    t2 = excluded.t2, n2 = excluded.n2, k2 = excluded.k2,
    t3 = excluded.t3, n3 = excluded.n3, k3 = excluded.k3,
    t4 = excluded.t4, n4 = excluded.n4, k4 = excluded.k4,
    t5 = excluded.t5, n5 = excluded.n5, k5 = excluded.k5,
    t6 = excluded.t6, n6 = excluded.n6, k6 = excluded.k6,
    t7 = excluded.t7, n7 = excluded.n7, k7 = excluded.k7,
    t8 = excluded.t8, n8 = excluded.n8, k8 = excluded.k8;
  RETURN NULL;
END $$;

-- Forgets deleted contacts, under the same shared lock as the writes.
CREATE FUNCTION mailroom_contact_slots_forget() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM pg_advisory_xact_lock_shared(1296516201, hashtext(p.project_id::text))
     FROM (SELECT DISTINCT project_id FROM old_rows ORDER BY project_id) p;
  DELETE FROM contact_slots s USING old_rows o WHERE s.project_id = o.project_id AND s.id = o.id;
  RETURN NULL;
END $$;

DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    CREATE TRIGGER contact_slots_on_insert AFTER INSERT ON contacts
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mailroom_contact_slots_write();
    CREATE TRIGGER contact_slots_on_update AFTER UPDATE ON contacts
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION mailroom_contact_slots_write();
    CREATE TRIGGER contact_slots_on_delete AFTER DELETE ON contacts
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION mailroom_contact_slots_forget();
  END IF;
END $$;
