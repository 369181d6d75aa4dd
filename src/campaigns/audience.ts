import { ConditionError, type ConditionTree, compileAudience, pathSegments, segmentMembership, validateConditionTree } from '../conditions/index.ts';
import type { Queryable } from '../db/index.ts';
import { AppError } from '../errors.ts';
import { type Audience, SUBSCRIBED } from './campaign-sending.queries.ts';
import type { AudienceType, CampaignType } from './campaigns.schemas.ts';

export type AudienceSpec = {
  type: CampaignType;
  audience_type: AudienceType;
  segment_id: string | null;
  audience_condition: Record<string, unknown> | null;
};

/**
 * The contacts a campaign's audience selects, as one predicate over contacts `c` (docs/decisions/segments.md:
 * evaluated in the database): the project's contacts, narrowed by the segment or the condition
 * tree, whatever their subscription. Every value is a bound parameter, the project always `$1`.
 * An unknown segment is a 404; a tree the database refuses (an unknown or circular segment
 * reference) throws the compiler's ConditionError.
 */
export async function selectionOf(db: Queryable, projectId: string, spec: AudienceSpec): Promise<Audience> {
  const params: unknown[] = [projectId];
  const parts = ['c.project_id = $1'];
  if (spec.audience_type === 'SEGMENT') parts.push(`(${await segmentMembership(db, projectId, spec.segment_id!, params)})`);
  if (spec.audience_type === 'FILTERED') parts.push(`(${await compileAudience(db, projectId, spec.audience_condition as ConditionTree, params)})`);
  return { predicate: parts.join(' AND '), params };
}

/** The send's narrowing of a selection: subscribed contacts only unless the campaign is TRANSACTIONAL (docs/decisions/sending.md). */
export function subscribedOnly(spec: Pick<AudienceSpec, 'type'>): boolean {
  return spec.type !== 'TRANSACTIONAL';
}

/** A selection narrowed as a send narrows it. */
export function narrowForSend(selection: Audience, spec: Pick<AudienceSpec, 'type'>): Audience {
  if (!subscribedOnly(spec)) return selection;
  return { predicate: `${selection.predicate} AND ${SUBSCRIBED}`, params: selection.params };
}

/** The campaign's audience: the contacts a send fixes records for (the suppressed among them get SUPPRESSED ones). */
export async function audienceOf(db: Queryable, projectId: string, spec: AudienceSpec): Promise<Audience> {
  return narrowForSend(await selectionOf(db, projectId, spec), spec);
}

/** docs/decisions/segments.md on campaigns: an invalid tree is a 422 naming the path of the bad filter. */
function conditionError(path: string, message: string): AppError {
  const field = ['audienceCondition', ...pathSegments(path)].join('.');
  return new AppError('VALIDATION_ERROR', { errors: [{ field, code: 'custom', message }] });
}

/** Checks a FILTERED campaign's condition tree by itself (the segments it names are checked by compiling). */
export function checkAudienceCondition(tree: unknown): void {
  const problem = validateConditionTree(tree);
  if (problem) throw conditionError(problem.path, problem.message);
}

/**
 * audienceOf for a campaign being written: the compiler's 400 for a tree that names an unknown or
 * circular segment becomes the 422 campaigns answer for a bad condition (docs/decisions/segments.md).
 */
export async function audienceForWrite(db: Queryable, projectId: string, spec: AudienceSpec): Promise<Audience> {
  return refusedAsWrite(() => audienceOf(db, projectId, spec));
}

/** selectionOf with audienceForWrite's errors (the audience check answers as campaign create does). */
export async function selectionForWrite(db: Queryable, projectId: string, spec: AudienceSpec): Promise<Audience> {
  return refusedAsWrite(() => selectionOf(db, projectId, spec));
}

async function refusedAsWrite(build: () => Promise<Audience>): Promise<Audience> {
  try {
    return await build();
  } catch (error) {
    if (error instanceof ConditionError) throw conditionError(error.path, error.reason);
    throw error;
  }
}
