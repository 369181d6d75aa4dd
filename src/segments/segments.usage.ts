import { registerFieldUsage } from '../contacts/contact-fields.service.ts';
import type { Deps } from '../deps.ts';
import { registerEventUsage } from '../events/events.registry.ts';
import { findSegmentsReferencing } from './segments.queries.ts';

/** The condition fields that name an event: `event.<name>`, and `email.<activity>` for email.* events. */
export function eventFields(eventName: string): string[] {
  return eventName.startsWith('email.') ? [`event.${eventName}`, eventName] : [`event.${eventName}`];
}

/**
 * Segments in the usage endpoints: GET /contacts/fields/{field}/usage and
 * GET /events/{eventName}/usage list the segments whose condition filters on them. The event
 * usage seam carries no database handle, so it is registered from the jobs factory, which every
 * process role runs with its deps.
 */
export function registerSegmentUsage(deps: Pick<Deps, 'db'>): void {
  registerFieldUsage('segments', (db, projectId, field) => findSegmentsReferencing(db, projectId, [field.standard ? field.key : `data.${field.key}`]));
  registerEventUsage('segments', (projectId, eventName) => findSegmentsReferencing(deps.db, projectId, eventFields(eventName)));
}
