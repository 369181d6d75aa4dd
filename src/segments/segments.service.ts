import { randomUUID } from 'node:crypto';
import { ConditionError, type ConditionTree, cleanConditionTree, compileAudience, compileCount, validateConditionTree } from '../conditions/index.ts';
import { toContact } from '../contacts/contacts.schemas.ts';
import type { Db, Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { AppError, badRequest, flatBadRequest, notFound } from '../errors.ts';
import { recordEvents } from '../events/events.service.ts';
import { prepareNarrowCopy } from './narrow-copy.ts';
import * as queries from './segments.queries.ts';
import {
  DEFAULT_PAGE_SIZE,
  MAX_MEMBER_EMAILS,
  MAX_PAGE_SIZE,
  type Segment,
  type SegmentBody,
  type SegmentInput,
  type SegmentRow,
  segmentInput,
  toSegment,
} from './segments.schemas.ts';

type SegmentDeps = Pick<Deps, 'db' | 'queue' | 'config' | 'log'>;

/** docs/decisions/segments.md: the name lower-cased, runs of non-alphanumerics replaced by `-`, trimmed of `-`. */
export function segmentSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

// --- Input -----------------------------------------------------------------------------------

/** the API reference (Segments): a bad body is a flat 400 `{ error }` (the first problem found). */
function parseInput(body: SegmentBody | undefined): SegmentInput {
  const parsed = segmentInput.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const field = issue.path.map(String).join('.');
  throw flatBadRequest(issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`);
}

/** A DYNAMIC segment's condition: an object, valid by docs/decisions/segments.md, else a flat 400 naming the path. */
function checkCondition(condition: unknown): ConditionTree {
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) {
    throw flatBadRequest('condition is required for a DYNAMIC segment and must be an object { logic, groups }');
  }
  const problem = validateConditionTree(condition);
  if (problem) throw flatBadRequest(`Invalid condition at ${problem.path}: ${problem.message}`);
  return cleanConditionTree(condition);
}

/** Compiler errors (unknown or circular segment references) are the same flat 400. */
async function flatOnConditionError<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConditionError) throw flatBadRequest(error.message);
    throw error;
  }
}

// --- Members -----------------------------------------------------------------------------------

const storedMembers = (projectId: string, segmentId: string): queries.Members => ({ kind: 'static', projectId, segmentId });

/** Where a segment's members come from: its live condition (DYNAMIC) or its stored members (STATIC). */
export async function membersOf(db: Queryable, projectId: string, segment: { id: string; type: SegmentRow['type']; condition: ConditionTree | null }): Promise<queries.Members> {
  if (segment.type === 'STATIC' || !segment.condition) return storedMembers(projectId, segment.id);
  const params: unknown[] = [projectId];
  const predicate = await compileAudience(db, projectId, segment.condition, params, { segmentId: segment.id });
  return { kind: 'dynamic', predicate, params };
}

/** Like membersOf, to count them: over the narrow copy when it holds every field the condition reads. */
export async function countedMembersOf(db: Queryable, projectId: string, segment: Parameters<typeof membersOf>[2]): Promise<queries.Members> {
  if (segment.type === 'STATIC' || !segment.condition) return storedMembers(projectId, segment.id);
  const params: unknown[] = [projectId];
  const { table, predicate } = await compileCount(db, projectId, segment.condition, params, { segmentId: segment.id });
  return { kind: 'dynamic', predicate, params, table };
}

/** The live member count of a segment (one transaction, so the audience is planned with its values). */
export async function countSegment(db: Db, projectId: string, segment: Parameters<typeof membersOf>[2]): Promise<number> {
  return db.transaction(async (tx) => {
    await queries.planWithValues(tx);
    return queries.countMembers(tx, await countedMembersOf(tx, projectId, segment));
  });
}

async function findOr404(db: Queryable, projectId: string, id: string, options?: { forUpdate?: boolean }): Promise<SegmentRow> {
  const row = await queries.findSegment(db, projectId, id, options);
  if (!row) throw notFound('Segment');
  return row;
}

// --- CRUD --------------------------------------------------------------------------------------

/** POST /segments: STATIC ignores `condition` (stored as null); memberCount is counted now. */
export async function createSegment(deps: SegmentDeps, projectId: string, body: SegmentBody | undefined): Promise<Segment> {
  const input = parseInput(body);
  if (input.name === undefined) throw flatBadRequest('name is required');
  const type = input.type ?? 'DYNAMIC';
  const id = randomUUID();
  const condition = type === 'DYNAMIC' ? checkCondition(body?.condition) : null;
  if (condition) await prepareNarrowCopy(deps, projectId, condition);
  const memberCount = condition ? await flatOnConditionError(() => countSegment(deps.db, projectId, { id, type, condition })) : 0;
  const row = await queries.insertSegment(deps.db, projectId, {
    id,
    name: input.name,
    description: input.description ?? null,
    type,
    condition,
    trackMembership: input.trackMembership ?? false,
    memberCount,
  });
  return toSegment(row);
}

export async function getSegment(deps: SegmentDeps, projectId: string, id: string): Promise<Segment> {
  return toSegment(await findOr404(deps.db, projectId, id));
}

export async function listSegments(deps: SegmentDeps, projectId: string): Promise<Segment[]> {
  return (await queries.listSegments(deps.db, projectId)).map(toSegment);
}

/**
 * PATCH /segments/{id}: name, description, condition (DYNAMIC only), trackMembership. The type is
 * fixed at creation. The count is refreshed; turning trackMembership off forgets the stored
 * membership, so turning it on again starts from nobody (docs/decisions/segments.md).
 */
export async function updateSegment(deps: SegmentDeps, projectId: string, id: string, body: SegmentBody | undefined): Promise<Segment> {
  const input = parseInput(body);
  const existing = await findOr404(deps.db, projectId, id);
  if (input.type !== undefined && input.type !== existing.type) throw flatBadRequest('type cannot be changed after creation');
  let condition: ConditionTree | undefined;
  if (body?.condition !== undefined) {
    if (existing.type === 'STATIC') throw flatBadRequest('condition applies to DYNAMIC segments only');
    condition = checkCondition(body.condition);
    await prepareNarrowCopy(deps, projectId, condition);
  }
  const memberCount = await flatOnConditionError(() => countSegment(deps.db, projectId, { id, type: existing.type, condition: condition ?? existing.condition }));
  const row = await deps.db.transaction(async (tx) => {
    const updated = await queries.updateSegment(tx, projectId, id, {
      name: input.name,
      description: input.description,
      condition,
      trackMembership: input.trackMembership,
      memberCount,
    });
    if (!updated) throw notFound('Segment');
    if (existing.track_membership && !updated.track_membership) await queries.clearMembership(tx, projectId, id);
    return updated;
  });
  return toSegment(row);
}

/**
 * What else uses a segment, by its id: campaigns (DRAFT, SCHEDULED, SENDING) and other segments'
 * conditions. A guard answers why the segment cannot be deleted (→ 409), or null.
 */
type SegmentGuard = (db: Queryable, projectId: string, segmentId: string) => Promise<string | null>;

const guards: readonly SegmentGuard[] = [
  async (db, projectId, segmentId) => {
    const [campaign] = await queries.findActiveCampaignsUsing(db, projectId, segmentId);
    return campaign ? `The segment is used by the ${campaign.status} campaign "${campaign.name}" (${campaign.id}).` : null;
  },
  async (db, projectId, segmentId) => {
    const [other] = (await queries.findSegmentsReferencing(db, projectId, [`segment.${segmentId}`])).filter((s) => s.id !== segmentId);
    return other ? `The segment is referenced by the condition of segment "${other.name}" (${other.id}).` : null;
  },
];

/** DELETE /segments/{id}: 409 while something uses it (docs/decisions/segments.md). */
export async function deleteSegment(deps: SegmentDeps, projectId: string, id: string): Promise<void> {
  await findOr404(deps.db, projectId, id);
  for (const guard of guards) {
    const reason = await guard(deps.db, projectId, id);
    if (reason) throw new AppError('CONFLICT', { message: reason });
  }
  if (!(await queries.deleteSegment(deps.db, projectId, id))) throw notFound('Segment');
}

// --- Members, compute, refresh -------------------------------------------------------------------

/** GET /segments/{id}/contacts: live for dynamic segments; page-based (the API reference). */
export async function listSegmentContacts(deps: SegmentDeps, projectId: string, id: string, query: { page?: number; pageSize?: number }) {
  const segment = await findOr404(deps.db, projectId, id);
  const page = query.page ?? 1;
  const pageSize = Math.min(query.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  return flatOnConditionError(() =>
    deps.db.transaction(async (tx) => {
      await queries.planWithValues(tx);
      const members = await membersOf(tx, projectId, segment);
      const total = await queries.countMembers(tx, await countedMembersOf(tx, projectId, segment));
      const rows = await queries.listMembers(tx, members, { limit: pageSize, offset: (page - 1) * pageSize });
      return { data: rows.map(toContact), total, page, pageSize };
    }),
  );
}

async function findStatic(deps: SegmentDeps, projectId: string, id: string, emails: string[]): Promise<SegmentRow> {
  const segment = await findOr404(deps.db, projectId, id);
  if (segment.type !== 'STATIC') throw badRequest("Members can be changed on STATIC segments only; a DYNAMIC segment's members follow its condition.");
  if (emails.length > MAX_MEMBER_EMAILS) throw badRequest(`At most ${MAX_MEMBER_EMAILS} emails per call.`);
  return segment;
}

/** POST /segments/{id}/members (docs/decisions/segments.md). `subscribed` applies to contacts created here (default true). */
export async function addSegmentMembers(
  deps: SegmentDeps,
  projectId: string,
  id: string,
  input: { emails: string[]; createMissing?: boolean; subscribed?: boolean },
): Promise<{ added: number; created: number; notFound: string[] }> {
  const segment = await findStatic(deps, projectId, id, input.emails);
  return deps.db.transaction(async (tx) => {
    const result = await queries.addMembers(tx, projectId, segment.id, {
      emails: input.emails,
      createMissing: input.createMissing ?? false,
      subscribed: input.subscribed ?? true,
    });
    await queries.saveMemberCount(tx, projectId, segment.id, await queries.countMembers(tx, storedMembers(projectId, segment.id)));
    return { added: result.added, created: result.created, notFound: result.not_found };
  });
}

/** DELETE /segments/{id}/members → { removed }. */
export async function removeSegmentMembers(deps: SegmentDeps, projectId: string, id: string, emails: string[]): Promise<{ removed: number }> {
  const segment = await findStatic(deps, projectId, id, emails);
  return deps.db.transaction(async (tx) => {
    const removed = await queries.removeMembers(tx, projectId, segment.id, emails);
    await queries.saveMemberCount(tx, projectId, segment.id, await queries.countMembers(tx, storedMembers(projectId, segment.id)));
    return { removed };
  });
}

/** Events recorded per recordEvents call: bounded memory and statement size. */
const EVENT_CHUNK = 1000;

/**
 * POST /segments/{id}/compute (docs/decisions/segments.md): a tracked dynamic segment's live membership replaces
 * the stored one in one statement; each contact that entered or left gets `segment.<slug>.entry` /
 * `.exit` with `{ segmentId, segmentName }`. The segment row is locked for the transaction, so two
 * computations never emit the same change twice.
 */
export async function computeSegment(deps: SegmentDeps, projectId: string, id: string): Promise<{ entered: number; exited: number; total: number }> {
  const found = await findOr404(deps.db, projectId, id);
  if (found.type !== 'DYNAMIC' || !found.track_membership) {
    throw badRequest('Only DYNAMIC segments with trackMembership compute membership; use POST /segments/{id}/refresh to refresh the count.');
  }
  return flatOnConditionError(() =>
    deps.db.transaction(async (tx) => {
      const segment = await findOr404(tx, projectId, id, { forUpdate: true });
      await queries.planWithValues(tx);
      const members = await membersOf(tx, projectId, segment);
      if (members.kind !== 'dynamic') throw badRequest('Only DYNAMIC segments compute membership.');
      const diff = await queries.replaceMembership(tx, segment.id, members);
      const slug = segmentSlug(segment.name) || segment.id;
      const data = { segmentId: segment.id, segmentName: segment.name };
      for (const [ids, suffix] of [
        [diff.entered, 'entry'],
        [diff.exited, 'exit'],
      ] as const) {
        for (let start = 0; start < ids.length; start += EVENT_CHUNK) {
          const chunk = ids.slice(start, start + EVENT_CHUNK).map((contactId) => ({ contactId, name: `segment.${slug}.${suffix}`, data }));
          await recordEvents(tx, projectId, chunk);
        }
      }
      await queries.saveMemberCount(tx, projectId, segment.id, diff.total);
      return { entered: diff.entered.length, exited: diff.exited.length, total: diff.total };
    }),
  );
}

/** POST /segments/{id}/refresh: the count only; no events, no membership writes. */
export async function refreshSegment(deps: SegmentDeps, projectId: string, id: string): Promise<Segment> {
  const segment = await findOr404(deps.db, projectId, id);
  const count = await flatOnConditionError(() => countSegment(deps.db, projectId, segment));
  return toSegment((await queries.saveMemberCount(deps.db, projectId, id, count)) ?? segment);
}

/**
 * The background refresh: recounts every segment whose count is older than `maxAgeSeconds`. It
 * also gives a segment's keys their slots of the narrow copy, so a segment saved before the copy
 * existed counts from it after one interval.
 */
export async function refreshDueSegments(deps: SegmentDeps, maxAgeSeconds: number): Promise<number> {
  const due = await queries.findSegmentsDueForCount(deps.db, maxAgeSeconds, 1000);
  for (const { project_id: projectId, id } of due) {
    const segment = await queries.findSegment(deps.db, projectId, id);
    if (!segment) continue;
    if (segment.type === 'DYNAMIC' && segment.condition) await prepareNarrowCopy(deps, projectId, segment.condition);
    try {
      await queries.saveMemberCount(deps.db, projectId, id, await countSegment(deps.db, projectId, segment));
    } catch (error) {
      // A condition that no longer compiles keeps its last count; it is retried next interval.
      deps.log.warn({ err: error, projectId, segmentId: id }, 'segment count failed');
      await queries.saveMemberCount(deps.db, projectId, id, null);
    }
  }
  return due.length;
}
