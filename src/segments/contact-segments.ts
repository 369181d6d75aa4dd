import { ConditionError, type ConditionTree, compileCondition, loadReferencedSegments } from '../conditions/index.ts';
import { findContact } from '../contacts/contacts.queries.ts';
import type { Deps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { contactMemberships, listSegments } from './segments.queries.ts';
import type { SegmentType } from './segments.schemas.ts';

export type ContactSegment = { id: string; name: string; type: SegmentType; trackMembership: boolean };

/**
 * GET /contacts/{id}/segments: the segments the contact is a member of now, by name. Membership is
 * live, as everywhere (docs/decisions/segments.md): a dynamic segment's condition is evaluated for
 * this one contact, a static segment's stored members are read, all in one statement. A segment
 * whose condition no longer compiles (it names a deleted segment) has no members and is left out.
 */
export async function segmentsOfContact(deps: Pick<Deps, 'db'>, projectId: string, contactId: string): Promise<{ data: ContactSegment[] }> {
  if (!(await findContact(deps.db, projectId, contactId))) throw notFound('Contact');
  const segments = await listSegments(deps.db, projectId);
  if (segments.length === 0) return { data: [] };
  const ids = segments.map((s) => s.id);
  const tree = (id: string): ConditionTree => ({ logic: 'AND', groups: [{ filters: [{ field: `segment.${id}`, operator: 'memberOfSegment' }] }] });
  const resolved = await loadReferencedSegments(deps.db, projectId, { logic: 'OR', groups: ids.map((id) => ({ filters: tree(id).groups[0]!.filters })) });
  const params: unknown[] = [projectId, contactId];
  const tests: { id: string; sql: string }[] = [];
  for (const id of ids) {
    try {
      tests.push({ id, sql: compileCondition(tree(id), { projectId, params, segments: resolved }) });
    } catch (error) {
      if (!(error instanceof ConditionError)) throw error;
    }
  }
  const member = new Set(await contactMemberships(deps.db, tests, params));
  return {
    data: segments
      .filter((s) => member.has(s.id))
      .sort((a, b) => a.name.localeCompare(b.name))
      .map((s) => ({ id: s.id, name: s.name, type: s.type, trackMembership: s.track_membership })),
  };
}
