import type { Queryable } from '../db/index.ts';

/**
 * Who hears recorded events (contract §11: workflow triggers; webhook endpoints' fan-out): a
 * Capability's `events` (src/modules.ts). Subscribers run in the worker through the
 * `events.dispatch` job, never inside the request that recorded the events.
 */
export type RecordedEvents = { projectId: string; eventIds: string[] };
export type EventsSubscriber = (batch: RecordedEvents) => Promise<void>;

/** Where an event name is referenced (GET /events/{eventName}/usage), by kind. */
export type EventUsage = Record<'segments' | 'campaigns' | 'workflows', Array<{ id: string; name: string }>>;
/** A capability's references to an event name (a Capability's `usage.events`). */
export type EventUsageFinder = (db: Queryable, projectId: string, eventName: string) => Promise<Partial<EventUsage>>;
