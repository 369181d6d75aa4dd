import type { Queryable } from '../db/index.ts';
import { notFound } from '../errors.ts';
import { compileCondition, narrowable, type ResolvedSegment } from './compile.ts';
import { findReadySlots, findSegmentDefinitions } from './conditions.queries.ts';
import { type ConditionTree, referencedSegments } from './types.ts';
import { validateConditionTree } from './validate.ts';

/**
 * The database side of the compiler: loads every segment a tree reaches (following dynamic
 * segments' own references, one query per level), then hands the pure compiler a closed world.
 * Segments missing from the result are reported by the compiler as unknown, at their path.
 */
export async function loadReferencedSegments(
  db: Queryable,
  projectId: string,
  tree: ConditionTree,
  known: ReadonlyMap<string, ResolvedSegment> = new Map(),
): Promise<Map<string, ResolvedSegment>> {
  const segments = new Map(known);
  const asked = new Set<string>(segments.keys());
  const referencesOf = (condition: ConditionTree) => (validateConditionTree(condition) ? [] : referencedSegments(condition));
  let pending = referencesOf(tree).filter((id) => !asked.has(id));
  while (pending.length > 0) {
    for (const id of pending) asked.add(id);
    const rows = await findSegmentDefinitions(db, projectId, pending);
    const next = new Set<string>();
    for (const row of rows) {
      if (row.type === 'STATIC') {
        segments.set(row.id, { type: 'STATIC' });
      } else if (row.condition) {
        segments.set(row.id, { type: 'DYNAMIC', condition: row.condition });
        for (const id of referencesOf(row.condition)) if (!asked.has(id)) next.add(id);
      }
    }
    pending = [...next];
  }
  return segments;
}

export type CompileAudienceOptions = {
  /** The segment this tree is (or will be) the condition of: a reference back to it is circular. */
  segmentId?: string;
};

/**
 * A SQL boolean expression over `contacts c` for the tree, values appended to `params` and
 * referenced as `$n`; subqueries are scoped by the project (its id is appended too). Segment
 * references are resolved through the database. An invalid tree, an unknown segment or a circular
 * reference throws ConditionError (400 BAD_REQUEST naming the path). The caller adds
 * `c.project_id = $k`.
 */
export async function compileAudience(db: Queryable, projectId: string, tree: ConditionTree, params: unknown[], options: CompileAudienceOptions = {}): Promise<string> {
  const self = options.segmentId?.toLowerCase();
  const known = new Map<string, ResolvedSegment>(self ? [[self, { type: 'DYNAMIC', condition: tree }]] : []);
  const segments = await loadReferencedSegments(db, projectId, tree, known);
  return compileCondition(tree, { projectId, params, segments, stack: self ? [self] : [] });
}

/**
 * Like compileAudience, for a count: over the narrow copy (`contact_slots c`, the same columns
 * `id`, `subscribed`, `created_at` and each key's slot) when every field the tree reaches has a
 * ready slot there, else over `contacts c` (docs/decisions/segments.md, "The narrow copy"). Both
 * select the same contacts; the caller counts `FROM <table> c WHERE c.project_id = $k AND …`.
 */
export async function compileCount(
  db: Queryable,
  projectId: string,
  tree: ConditionTree,
  params: unknown[],
  options: CompileAudienceOptions = {},
): Promise<{ table: 'contacts' | 'contact_slots'; predicate: string }> {
  const self = options.segmentId?.toLowerCase();
  const known = new Map<string, ResolvedSegment>(self ? [[self, { type: 'DYNAMIC', condition: tree }]] : []);
  const segments = await loadReferencedSegments(db, projectId, tree, known);
  const slots = await findReadySlots(db, projectId);
  const narrow = slots.size > 0 && validateConditionTree(tree) === null && narrowable(tree, segments, slots);
  const predicate = compileCondition(tree, { projectId, params, segments, stack: self ? [self] : [], ...(narrow ? { slots } : {}) });
  return { table: narrow ? 'contact_slots' : 'contacts', predicate };
}

/** "Contact c is a member of segment `segmentId`" (live for dynamic, stored for static); 404 when unknown. */
export async function segmentMembership(db: Queryable, projectId: string, segmentId: string, params: unknown[]): Promise<string> {
  const [row] = await findSegmentDefinitions(db, projectId, [segmentId]);
  if (!row) throw notFound('Segment');
  const tree: ConditionTree = { logic: 'AND', groups: [{ filters: [{ field: `segment.${row.id}`, operator: 'memberOfSegment' }] }] };
  return compileAudience(db, projectId, tree, params);
}
