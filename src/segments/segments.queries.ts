import type { ContactRow } from '../contacts/contacts.schemas.ts';
import type { Queryable } from '../db/index.ts';
import type { SegmentRow, SegmentType } from './segments.schemas.ts';

const COLUMNS = 'id, project_id, name, description, type, condition, track_membership, member_count, created_at, updated_at';

export type NewSegment = {
  id: string;
  name: string;
  description: string | null;
  type: SegmentType;
  condition: object | null;
  trackMembership: boolean;
  memberCount: number;
};

export async function insertSegment(db: Queryable, projectId: string, segment: NewSegment): Promise<SegmentRow> {
  const [row] = await db.query<SegmentRow>(
    `INSERT INTO segments (project_id, id, name, description, type, condition, track_membership, member_count, counted_at)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, now())
     RETURNING ${COLUMNS}`,
    [
      projectId,
      segment.id,
      segment.name,
      segment.description,
      segment.type,
      segment.condition ? JSON.stringify(segment.condition) : null,
      segment.trackMembership,
      segment.memberCount,
    ],
  );
  return row!;
}

export async function findSegment(db: Queryable, projectId: string, id: string, options: { forUpdate?: boolean } = {}): Promise<SegmentRow | undefined> {
  const [row] = await db.query<SegmentRow>(`SELECT ${COLUMNS} FROM segments WHERE project_id = $1 AND id = $2${options.forUpdate ? ' FOR UPDATE' : ''}`, [projectId, id]);
  return row;
}

export async function listSegments(db: Queryable, projectId: string): Promise<SegmentRow[]> {
  return db.query<SegmentRow>(`SELECT ${COLUMNS} FROM segments WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
}

export type SegmentPatch = { name?: string; description?: string | null; condition?: object; trackMembership?: boolean; memberCount?: number };

/**
 * Sets the given fields (undefined = keep); a new count also stamps counted_at. The time comes from
 * the `clock` CTE: Citus refuses now() inside CASE in a write.
 */
export async function updateSegment(db: Queryable, projectId: string, id: string, patch: SegmentPatch): Promise<SegmentRow | undefined> {
  const [row] = await db.query<SegmentRow>(
    `WITH clock AS MATERIALIZED (SELECT now() AS now)
     UPDATE segments SET
       name = CASE WHEN $3::boolean THEN $4 ELSE name END,
       description = CASE WHEN $5::boolean THEN $6 ELSE description END,
       condition = coalesce($7::jsonb, condition),
       track_membership = coalesce($8::boolean, track_membership),
       member_count = coalesce($9::int, member_count),
       counted_at = CASE WHEN $9::int IS NULL THEN counted_at ELSE clock.now END,
       updated_at = clock.now
       FROM clock
     WHERE project_id = $1 AND id = $2
     RETURNING ${COLUMNS}`,
    [
      projectId,
      id,
      patch.name !== undefined,
      patch.name ?? null,
      patch.description !== undefined,
      patch.description ?? null,
      patch.condition ? JSON.stringify(patch.condition) : null,
      patch.trackMembership ?? null,
      patch.memberCount ?? null,
    ],
  );
  return row;
}

export async function deleteSegment(db: Queryable, projectId: string, id: string): Promise<boolean> {
  return (await db.query('DELETE FROM segments WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, id])).length > 0;
}

/** Stores a new count without touching updated_at (the background refresh, POST …/refresh). */
export async function saveMemberCount(db: Queryable, projectId: string, id: string, count: number | null): Promise<SegmentRow | undefined> {
  const [row] = await db.query<SegmentRow>(
    `UPDATE segments SET member_count = coalesce($3::int, member_count), counted_at = now() WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [projectId, id, count],
  );
  return row;
}

/**
 * Where a member set comes from: a dynamic segment's compiled condition, whose `params` start with
 * the project id as `$1` (the compiled values follow), or a static segment's stored members.
 */
export type Members =
  // `table`: contact_slots only to count (compileCount); members are listed from contacts.
  { kind: 'dynamic'; predicate: string; params: unknown[]; table?: 'contacts' | 'contact_slots' } | { kind: 'static'; projectId: string; segmentId: string };

function membersFrom(members: Members): { from: string; params: unknown[] } {
  switch (members.kind) {
    case 'dynamic':
      return { from: `${members.table ?? 'contacts'} c WHERE c.project_id = $1::uuid AND ${members.predicate}`, params: members.params };
    case 'static':
      return {
        from: `contacts c JOIN segment_members m ON m.project_id = c.project_id AND m.contact_id = c.id
               WHERE c.project_id = $1::uuid AND m.segment_id = $2::uuid`,
        params: [members.projectId, members.segmentId],
      };
  }
}

/**
 * Plans the rest of the transaction's statements with their actual values. Statements are
 * prepared by name on PostgreSQL (src/db/postgres.ts), and after five runs a prepared statement may
 * switch to a generic plan, which cannot read the bound jsonb / jsonpath values: it then guesses a
 * data-filtered audience at a few rows and joins events row by row (3× slower at 1M contacts).
 * Without JIT: an event filter under OR is costed in the millions (as if probed per contact), which
 * made PostgreSQL compile the count with LLVM first, up to half of its time
 * (docs/decisions/segments.md, "Performance").
 */
export async function planWithValues(tx: Queryable): Promise<void> {
  await tx.query('SET LOCAL plan_cache_mode = force_custom_plan');
  await tx.query('SET LOCAL jit = off');
}

export async function countMembers(db: Queryable, members: Members): Promise<number> {
  const { from, params } = membersFrom(members);
  const [row] = await db.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${from}`, params);
  return row!.count;
}

/** One page of members, newest contacts first. */
export async function listMembers(db: Queryable, members: Members, page: { limit: number; offset: number }): Promise<ContactRow[]> {
  const { from, params } = membersFrom(members);
  const n = params.length;
  return db.query<ContactRow>(`SELECT c.* FROM ${from} ORDER BY c.created_at DESC, c.id DESC LIMIT $${n + 1} OFFSET $${n + 2}`, [...params, page.limit, page.offset]);
}

export type AddedMembers = { added: number; created: number; not_found: string[] };

/**
 * Adds contacts, by email, to a static segment in one statement; with `createMissing`, unknown
 * addresses become new contacts first (no subscription event: docs/decisions/contacts-and-events.md). A contact made by the
 * statement is not visible to its own snapshot, hence the UNION with `created`.
 */
export async function addMembers(
  db: Queryable,
  projectId: string,
  segmentId: string,
  input: { emails: string[]; createMissing: boolean; subscribed: boolean },
): Promise<AddedMembers> {
  const [row] = await db.query<AddedMembers>(
    `WITH input AS (
       SELECT DISTINCT email FROM unnest($3::text[]) AS i(email)
     ), created AS (
       INSERT INTO contacts (project_id, email, subscribed)
       SELECT $1, i.email, $5 FROM input i
       WHERE $4::boolean AND NOT EXISTS (SELECT 1 FROM contacts c WHERE c.project_id = $1 AND c.email = i.email)
       ON CONFLICT (project_id, email) DO NOTHING
       RETURNING id, email
     ), found AS (
       SELECT c.id, c.email FROM contacts c JOIN input i ON c.project_id = $1 AND c.email = i.email
       UNION ALL
       SELECT id, email FROM created
     ), added AS (
       INSERT INTO segment_members (project_id, segment_id, contact_id)
       SELECT $1, $2, id FROM found
       ON CONFLICT DO NOTHING
       RETURNING contact_id
     )
     SELECT (SELECT count(*) FROM added)::int AS added,
            (SELECT count(*) FROM created)::int AS created,
            coalesce((SELECT array_agg(i.email ORDER BY i.email) FROM input i WHERE NOT EXISTS (SELECT 1 FROM found f WHERE f.email = i.email)), '{}') AS not_found`,
    [projectId, segmentId, input.emails, input.createMissing, input.subscribed],
  );
  return row!;
}

export async function removeMembers(db: Queryable, projectId: string, segmentId: string, emails: string[]): Promise<number> {
  const rows = await db.query(
    `DELETE FROM segment_members m USING contacts c
     WHERE m.project_id = $1 AND m.segment_id = $2 AND c.project_id = $1 AND c.id = m.contact_id AND c.email = ANY($3::text[])
     RETURNING m.contact_id`,
    [projectId, segmentId, emails],
  );
  return rows.length;
}

export type MembershipDiff = { total: number; entered: string[]; exited: string[] };

/**
 * POST /segments/{id}/compute: stores the live membership of a tracked dynamic segment and returns
 * who entered and who left since the last computation, in one statement. `members.params` start
 * with the project id ($1); the segment id is appended.
 */
export async function replaceMembership(db: Queryable, segmentId: string, members: Extract<Members, { kind: 'dynamic' }>): Promise<MembershipDiff> {
  const params = [...members.params, segmentId];
  const s = `$${params.length}::uuid`;
  const [row] = await db.query<{ total: number; entered: string[] | null; exited: string[] | null }>(
    `WITH live AS MATERIALIZED (
       SELECT c.id FROM contacts c WHERE c.project_id = $1::uuid AND ${members.predicate}
     ), entered AS (
       INSERT INTO segment_members (project_id, segment_id, contact_id)
       SELECT $1::uuid, ${s}, id FROM live
       ON CONFLICT DO NOTHING
       RETURNING contact_id
     ), exited AS (
       DELETE FROM segment_members m
       WHERE m.project_id = $1::uuid AND m.segment_id = ${s} AND NOT EXISTS (SELECT 1 FROM live l WHERE l.id = m.contact_id)
       RETURNING m.contact_id
     )
     SELECT (SELECT count(*) FROM live)::int AS total,
            (SELECT array_agg(contact_id::text) FROM entered) AS entered,
            (SELECT array_agg(contact_id::text) FROM exited) AS exited`,
    params,
  );
  return { total: row!.total, entered: row!.entered ?? [], exited: row!.exited ?? [] };
}

/** Forgets a segment's stored membership (trackMembership turned off). */
export async function clearMembership(db: Queryable, projectId: string, segmentId: string): Promise<void> {
  await db.query('DELETE FROM segment_members WHERE project_id = $1 AND segment_id = $2', [projectId, segmentId]);
}

// Any filter of a stored condition, at any depth, whose field is $2.
const REFERENCES_FIELD = `jsonb_path_exists(s.condition, 'strict $.**.field ? (@ == $f)', jsonb_build_object('f', $2::text))`;

/** Segments of the project whose condition has a filter on one of `fields` (usage lookups). */
export async function findSegmentsReferencing(db: Queryable, projectId: string, fields: string[]): Promise<{ id: string; name: string }[]> {
  const found = new Map<string, { id: string; name: string }>();
  for (const field of fields) {
    const rows = await db.query<{ id: string; name: string }>(
      `SELECT s.id, s.name FROM segments s WHERE s.project_id = $1 AND s.condition IS NOT NULL AND ${REFERENCES_FIELD} ORDER BY s.created_at, s.id`,
      [projectId, field],
    );
    for (const row of rows) found.set(row.id, row);
  }
  return [...found.values()];
}

/**
 * DRAFT, SCHEDULED and SENDING campaigns that use a segment, as their audience or inside a
 * FILTERED audience condition (docs/decisions/segments.md). The campaigns table comes with the campaigns
 * capability's migration; until it exists, none.
 */
export async function findActiveCampaignsUsing(db: Queryable, projectId: string, segmentId: string): Promise<{ id: string; name: string; status: string }[]> {
  const [exists] = await db.query<{ present: boolean }>(`SELECT to_regclass('campaigns') IS NOT NULL AS present`);
  if (!exists?.present) return [];
  return db.query(
    `SELECT id, name, status FROM campaigns
     WHERE project_id = $1 AND status IN ('DRAFT', 'SCHEDULED', 'SENDING')
       AND (segment_id = $3::uuid OR jsonb_path_exists(coalesce(audience_condition, 'null'::jsonb), 'strict $.**.field ? (@ == $f)', jsonb_build_object('f', $2::text)))
     ORDER BY created_at, id`,
    [projectId, `segment.${segmentId}`, segmentId],
  );
}

export type DueSegment = { project_id: string; id: string };

/** Segments (of any project) whose cached count is older than `maxAgeSeconds`, oldest first. */
export async function findSegmentsDueForCount(db: Queryable, maxAgeSeconds: number, limit: number): Promise<DueSegment[]> {
  return db.query<DueSegment>(
    `SELECT project_id, id FROM segments
     WHERE counted_at IS NULL OR counted_at < now() - $1::double precision * interval '1 second'
     ORDER BY counted_at NULLS FIRST
     LIMIT $2`,
    [maxAgeSeconds, limit],
  );
}

/**
 * Which of these membership tests (SQL booleans over `contacts c`, values in `params` after the
 * project `$1` and the contact `$2`) hold for one contact: the ids whose test is true.
 */
export async function contactMemberships(db: Queryable, tests: { id: string; sql: string }[], params: unknown[]): Promise<string[]> {
  if (tests.length === 0) return [];
  const columns = tests.map((test, i) => `(${test.sql}) IS TRUE AS m${i}`).join(', ');
  const [row] = await db.query<Record<string, boolean>>(`SELECT ${columns} FROM contacts c WHERE c.project_id = $1 AND c.id = $2`, params);
  return row ? tests.filter((_, i) => row[`m${i}`]).map((test) => test.id) : [];
}

/**
 * Every campaign that uses a segment, whatever its status, as its audience or inside a FILTERED
 * audience condition (GET /segments/{id}/usage; docs/decisions/segments.md, "Used by").
 */
export async function findCampaignsUsing(db: Queryable, projectId: string, segmentId: string): Promise<{ id: string; name: string; status: string }[]> {
  return db.query(
    `SELECT id, name, status FROM campaigns
     WHERE project_id = $1
       AND (segment_id = $3::uuid OR jsonb_path_exists(coalesce(audience_condition, 'null'::jsonb), 'strict $.**.field ? (@ == $f)', jsonb_build_object('f', $2::text)))
     ORDER BY created_at DESC, id`,
    [projectId, `segment.${segmentId}`, segmentId],
  );
}

/** Workflows started by a tracked segment's membership events (`segment.<slug>.entry` / `.exit`). */
export async function findWorkflowsTriggeredBy(
  db: Queryable,
  projectId: string,
  eventNames: string[],
): Promise<{ id: string; name: string; enabled: boolean; event_name: string }[]> {
  return db.query(
    `SELECT id, name, enabled, event_name FROM workflows
     WHERE project_id = $1 AND trigger_type = 'EVENT' AND event_name = ANY($2::text[])
     ORDER BY name, id`,
    [projectId, eventNames],
  );
}
