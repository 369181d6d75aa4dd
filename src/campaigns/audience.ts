import type { Queryable } from '../db/index.ts';
import { badRequest } from '../http/errors.ts';
import type { Audience } from './campaign-sending.queries.ts';
import type { AudienceType, CampaignType } from './campaigns.schemas.ts';

export type AudienceSpec = {
  type: CampaignType;
  audience_type: AudienceType;
  segment_id: string | null;
  audience_condition: Record<string, unknown> | null;
};

/**
 * The campaign's audience as one predicate over contacts `c` (contract §4: evaluated in the
 * database): the project's contacts, subscribed ones only unless the campaign is TRANSACTIONAL
 * (contract §6), narrowed by the segment or the condition tree. Every value is a bound parameter.
 */
export async function audienceOf(db: Queryable, projectId: string, spec: AudienceSpec): Promise<Audience> {
  const params: unknown[] = [projectId];
  const parts = ['c.project_id = $1'];
  if (spec.type !== 'TRANSACTIONAL') parts.push('c.subscribed');
  if (spec.audience_type === 'SEGMENT' || spec.audience_type === 'FILTERED') {
    throw new Error(`${spec.audience_type} audiences are not available yet`);
  }
  void db;
  return { predicate: parts.join(' AND '), params };
}

/** A FILTERED campaign's condition tree (contract §4): invalid → 422 naming the path of the bad filter. */
export function checkAudienceCondition(_tree: unknown): void {
  throw badRequest('FILTERED audiences are not available yet.');
}

/** SEGMENT audiences: the segment must be in the project (404). */
export async function assertSegmentExists(_db: Queryable, _projectId: string, _segmentId: string): Promise<void> {
  throw badRequest('SEGMENT audiences are not available yet.');
}
