import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/index.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { insertEvents } from './events.queries.ts';
import { hasEventSubscribers } from './events.registry.ts';

export { onEventsRecorded } from './events.registry.ts';

export const EVENTS_DISPATCH_JOB = 'events.dispatch';
export type EventsDispatchData = { projectId: string; eventIds: string[] };

export type EventInput = { contactId: string; name: string; data?: Record<string, unknown>; emailId?: string | null };

/**
 * Inserts events in one statement and hands them to the worker (never runs triggers in the request).
 * One `events.dispatch` job per call, enqueued in the same transaction; skipped while nobody
 * subscribes (see events.registry.ts), which keeps /v1/track at two statements.
 */
export async function recordEvents(tx: Queryable, queue: JobQueue, projectId: string, events: EventInput[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((event) => ({
    id: randomUUID(),
    contactId: event.contactId,
    name: event.name,
    data: event.data ?? {},
    emailId: event.emailId ?? null,
  }));
  await insertEvents(tx, projectId, rows);
  const eventIds = rows.map((row) => row.id);
  if (hasEventSubscribers()) {
    await queue.send<EventsDispatchData>(EVENTS_DISPATCH_JOB, { projectId, eventIds }, { tx });
  }
  return eventIds;
}

/** api.md Events: the service event a change of `subscribed` emits. */
export function subscriptionEventName(subscribed: boolean): 'contact.subscribed' | 'contact.unsubscribed' {
  return subscribed ? 'contact.subscribed' : 'contact.unsubscribed';
}
