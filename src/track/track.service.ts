import { randomUUID } from 'node:crypto';
import { RESERVED_DATA_KEYS, splitContactData } from '../contacts/data-rules.ts';
import type { TrackWriter } from './track-writer.ts';

export type TrackInput = { email: string; event: string; subscribed?: boolean; data?: Record<string, unknown> };

/**
 * POST /v1/track: upsert the contact (new → subscribed unless passed), apply the data write rules
 * (one-off values allowed) and record the event, through the process's TrackWriter (group commit;
 * the worker gets the events through events.dispatch, never this request). The event keeps the
 * request's data with one-off values resolved and reserved keys dropped; a change of `subscribed`
 * is recorded with it as contact.subscribed / contact.unsubscribed.
 */
export async function trackEvent(writer: TrackWriter, projectId: string, input: TrackInput) {
  const changes = splitContactData(input.data, { oneOffAllowed: true });
  const eventData: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input.data ?? {})) {
    if (!RESERVED_DATA_KEYS.has(key)) eventData[key] = key in changes.oneOff ? changes.oneOff[key] : value;
  }
  const contact = { email: input.email, subscribed: input.subscribed ?? null, subscribedWhenNew: true, data: changes };
  const event = { id: randomUUID(), name: input.event, data: eventData, subscriptionEventId: randomUUID() };
  const tracked = await writer.track({ projectId, contact, event });
  return { contact: tracked.contact_id, event: event.id, timestamp: new Date().toISOString() };
}
