import { type Queryable, queryOne } from '../db/index.ts';

/** Counts of one custom data key's values by JSON kind (contact-fields.service infers the type). */
export type KeyCounts = { key: string; present: number; numbers: number; booleans: number; dates: number; strings: number };

export type FieldType = 'string' | 'number' | 'boolean' | 'date';

export type FieldStat = { name: string; type: FieldType; standard: boolean; coverage: number };

export type CachedStats = { fields: FieldStat[]; contactCount: number; computedAt: string; ageSeconds: number };

// An ISO-8601 date or date-time (2024-05-01, 2024-05-01T10:00, …:00.123Z, …+02:00).
const ISO_DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}(:?\\d{2})?)?)?$';

/**
 * One pass over the project's contacts: per data key, how many contacts hold it and of which kind.
 * This is the expensive statement the cache exists for (a full scan of the project's data).
 */
export function countDataKeys(db: Queryable, projectId: string) {
  return db.query<KeyCounts>(
    `SELECT e.key,
            count(*)::int AS present,
            count(*) FILTER (WHERE jsonb_typeof(e.value) = 'number')::int AS numbers,
            count(*) FILTER (WHERE jsonb_typeof(e.value) = 'boolean')::int AS booleans,
            count(*) FILTER (WHERE jsonb_typeof(e.value) = 'string' AND (e.value #>> '{}') ~ $2)::int AS dates,
            count(*) FILTER (WHERE jsonb_typeof(e.value) = 'string' AND NOT (e.value #>> '{}') ~ $2)::int AS strings
       FROM contacts c, jsonb_each(c.data) e
      WHERE c.project_id = $1 AND jsonb_typeof(e.value) <> 'null'
      GROUP BY e.key`,
    [projectId, ISO_DATE_PATTERN],
  );
}

/** Contact count and how many are snoozed (the only nullable standard field). */
export async function countContacts(db: Queryable, projectId: string) {
  const row = await queryOne<{ total: number; snoozed: number }>(db, `SELECT count(*)::int AS total, count(snoozed_until)::int AS snoozed FROM contacts WHERE project_id = $1`, [
    projectId,
  ]);
  return row ?? { total: 0, snoozed: 0 };
}

export async function findCachedStats(db: Queryable, projectId: string): Promise<CachedStats | undefined> {
  return queryOne<CachedStats>(
    db,
    `SELECT fields, contact_count AS "contactCount", computed_at AS "computedAt",
            extract(epoch FROM now() - computed_at)::float8 AS "ageSeconds"
       FROM contact_field_stats WHERE project_id = $1`,
    [projectId],
  );
}

export async function saveStats(db: Queryable, projectId: string, contactCount: number, fields: FieldStat[]) {
  await db.query(
    `INSERT INTO contact_field_stats (project_id, contact_count, fields, computed_at)
     SELECT id, $2, $3::jsonb, now() FROM projects WHERE id = $1
     ON CONFLICT (project_id) DO UPDATE SET contact_count = EXCLUDED.contact_count, fields = EXCLUDED.fields, computed_at = EXCLUDED.computed_at`,
    [projectId, contactCount, JSON.stringify(fields)],
  );
}

/** Forgets the cached stats: the next GET /contacts/fields counts afresh before it answers. */
export async function forgetStats(db: Queryable, projectId: string) {
  await db.query(`DELETE FROM contact_field_stats WHERE project_id = $1`, [projectId]);
}

/** Drops one custom field from the cached stats: removing a key changes no other field's coverage. */
export async function dropFieldFromStats(db: Queryable, projectId: string, field: string) {
  await db.query(
    `UPDATE contact_field_stats
        SET fields = coalesce((SELECT jsonb_agg(f ORDER BY n) FROM jsonb_array_elements(fields) WITH ORDINALITY AS a(f, n)
                                WHERE (f->>'standard')::boolean OR f->>'name' <> $2), '[]'::jsonb)
      WHERE project_id = $1`,
    [projectId, field],
  );
}

/**
 * Distinct values of one data key, most frequent first. Bounded work: only the first `scanLimit`
 * contacts of the project (in storage order) are read, so a million-contact project costs the same
 * as a small one (docs/decisions/contact-fields-bulk-import.md).
 */
export async function distinctValues(db: Queryable, projectId: string, key: string, scanLimit: number, limit: number) {
  const rows = await db.query<{ value: string | number | boolean }>(
    `SELECT s.value FROM (
        SELECT data -> $2::text AS value FROM contacts WHERE project_id = $1 LIMIT $3
      ) s
      WHERE s.value IS NOT NULL AND jsonb_typeof(s.value) <> 'null'
      GROUP BY s.value
      ORDER BY count(*) DESC, s.value
      LIMIT $4`,
    [projectId, key, scanLimit, limit],
  );
  return rows.map((row) => row.value);
}

/** Removes a key from every contact of the project that has it; returns how many changed. */
export async function deleteDataKey(db: Queryable, projectId: string, key: string) {
  const row = await queryOne<{ updated: number }>(
    db,
    `WITH changed AS (
       UPDATE contacts SET data = data - $2::text, updated_at = now()
        WHERE project_id = $1 AND data ? $2::text
        RETURNING 1
     )
     SELECT count(*)::int AS updated FROM changed`,
    [projectId, key],
  );
  return row?.updated ?? 0;
}
