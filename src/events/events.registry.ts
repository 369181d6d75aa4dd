/**
 * Who wants to hear about recorded events (later: workflows starting executions, contract §11).
 * Subscribers run in the worker through the `events.dispatch` job, never inside the request that
 * recorded the events. Register at module load or in a capability's `jobs(deps)` factory: both run
 * in every process role, so API processes know whether anybody listens before they enqueue.
 */
export type RecordedEvents = { projectId: string; eventIds: string[] };
export type EventsSubscriber = (batch: RecordedEvents) => Promise<void>;

const subscribers: EventsSubscriber[] = [];

export function onEventsRecorded(subscriber: EventsSubscriber): () => void {
  subscribers.push(subscriber);
  return () => {
    const index = subscribers.indexOf(subscriber);
    if (index >= 0) subscribers.splice(index, 1);
  };
}

export const hasEventSubscribers = () => subscribers.length > 0;

export const eventSubscribers = (): readonly EventsSubscriber[] => subscribers;

/** Where an event name is referenced (GET /events/{eventName}/usage); capabilities add theirs. */
export type EventUsageKind = 'segments' | 'campaigns' | 'workflows';
export type EventUsageSource = (projectId: string, eventName: string) => Promise<Array<{ id: string; name: string }>>;

const usageSources = new Map<EventUsageKind, EventUsageSource>();

export function registerEventUsage(kind: EventUsageKind, source: EventUsageSource): void {
  usageSources.set(kind, source);
}

export async function findEventUsage(projectId: string, eventName: string): Promise<Record<EventUsageKind, Array<{ id: string; name: string }>>> {
  const usage: Record<EventUsageKind, Array<{ id: string; name: string }>> = { segments: [], campaigns: [], workflows: [] };
  for (const [kind, source] of usageSources) usage[kind] = await source(projectId, eventName);
  return usage;
}
