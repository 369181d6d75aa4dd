import { Batcher } from '../db/batcher.ts';
import type { Deps } from '../deps.ts';
import { EVENTS_DISPATCH_JOB, type EventsDispatchData } from './events.service.ts';
import { type TrackedRow, type TrackItem, trackBatch } from './events.queries.ts';
import { hasEventSubscribers } from './events.registry.ts';

/** Requests written by one /v1/track statement at most. */
const MAX_BATCH = 100;

/**
 * Writes /v1/track requests with group commit (src/db/batcher.ts): under load, the requests that
 * arrive while a write runs share the next one, which is one statement (trackBatch) when nobody
 * subscribes to events, else one transaction that also enqueues one events.dispatch job per
 * project. One per process, made by the events routes.
 */
export class TrackWriter {
  private readonly batcher: Batcher<TrackItem, TrackedRow>;

  constructor(private readonly deps: Pick<Deps, 'db' | 'queue'>) {
    this.batcher = new Batcher((items) => this.write(items), {
      // The embedded database has one connection: a second write would only queue behind the first.
      maxInFlight: deps.db.kind === 'pglite' ? 1 : 2,
      maxBatch: MAX_BATCH,
      keyOf: (item) => `${item.projectId} ${item.contact.email}`,
    });
  }

  track(item: TrackItem): Promise<TrackedRow> {
    return this.batcher.submit(item);
  }

  private async write(items: TrackItem[]): Promise<TrackedRow[]> {
    if (!hasEventSubscribers()) return trackBatch(this.deps.db, items);
    return this.deps.db.transaction(async (tx) => {
      const rows = await trackBatch(tx, items);
      const eventIds = new Map<string, string[]>();
      items.forEach((item, i) => {
        const ids = eventIds.get(item.projectId) ?? [];
        ids.push(item.event.id);
        const subscriptionEventId = rows[i]!.subscription_event_id;
        if (subscriptionEventId) ids.push(subscriptionEventId);
        eventIds.set(item.projectId, ids);
      });
      for (const [projectId, ids] of eventIds) {
        await this.deps.queue.send<EventsDispatchData>(EVENTS_DISPATCH_JOB, { projectId, eventIds: ids }, { tx });
      }
      return rows;
    });
  }
}
