import type { EventUsageFinder, FieldUsageFinder } from '../deps.ts';
import { findSegmentsReferencing } from './segments.queries.ts';

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
