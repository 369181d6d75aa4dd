import type { Deps, EventUsageFinder, FieldUsageFinder } from '../deps.ts';
import { notFound } from '../errors.ts';
import { findCampaignsUsing, findSegment, findSegmentsReferencing, findWorkflowsTriggeredBy } from './segments.queries.ts';
import { segmentSlug } from './segments.service.ts';

/** The condition fields that name an event: `event.<name>`, and `email.<activity>` for email.* events. */
export function eventFields(eventName: string): string[] {
  return eventName.startsWith('email.') ? [`event.${eventName}`, eventName] : [`event.${eventName}`];
}

/**
 * Segments in the usage endpoints (wired in src/modules.ts): GET /contacts/fields/{field}/usage
 * and GET /events/{eventName}/usage list the segments whose condition filters on them.
 */
export const segmentsUsage: { fields: FieldUsageFinder; events: EventUsageFinder } = {
  fields: async (db, projectId, field) => ({ segments: await findSegmentsReferencing(db, projectId, [field.standard ? field.key : `data.${field.key}`]) }),
  events: async (db, projectId, eventName) => ({ segments: await findSegmentsReferencing(db, projectId, eventFields(eventName)) }),
};

/**
 * GET /segments/{id}/usage: what uses a segment (docs/decisions/segments.md, "Used by"): campaigns
 * (any status) with it as audience or in their filter, segments whose condition names it, and
 * workflows its membership events start (`segment.<slug>.entry` / `.exit`, tracked segments only).
 */
export async function segmentUsage(deps: Pick<Deps, 'db'>, projectId: string, segmentId: string) {
  const segment = await findSegment(deps.db, projectId, segmentId);
  if (!segment) throw notFound('Segment');
  const slug = segmentSlug(segment.name);
  const [campaigns, segments, workflows] = await Promise.all([
    findCampaignsUsing(deps.db, projectId, segmentId),
    findSegmentsReferencing(deps.db, projectId, [`segment.${segmentId}`]),
    findWorkflowsTriggeredBy(deps.db, projectId, [`segment.${slug}.entry`, `segment.${slug}.exit`]),
  ]);
  return {
    campaigns,
    segments: segments.filter((s) => s.id !== segmentId),
    workflows: workflows.map((w) => ({ id: w.id, name: w.name, enabled: w.enabled, eventName: w.event_name })),
    membershipEvents: segment.track_membership ? { entry: `segment.${slug}.entry`, exit: `segment.${slug}.exit` } : null,
  };
}
