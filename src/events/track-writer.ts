import { Batcher } from '../db/batcher.ts';
import type { Deps } from '../deps.ts';
import { dispatchWaker } from './events.jobs.ts';
import { upsertContactByEmail } from '../contacts/contacts.queries.ts';
import type { Queryable } from '../db/index.ts';
import { insertDispatch, insertEvents, type NewEventRow, type TrackedRow, type TrackItem, trackBatch } from './events.queries.ts';
import { subscriptionEventName } from './events.service.ts';

/** Requests written by one /v1/track statement at most. */
const MAX_BATCH = 100;

/**
 * Writes /v1/track requests with group commit (src/db/batcher.ts): under load, the requests that
 * arrive while a write runs share the next one, which is one statement (trackBatch). When anybody
 * subscribes to events, the same statement queues them in event_dispatch, and the worker's drain is
 * woken once it committed. One per process, made by the events routes.
 */
export class TrackWriter {
  private readonly batcher: Batcher<TrackItem, TrackedRow>;
  private readonly wake: () => void;

  constructor(private readonly deps: Pick<Deps, 'db' | 'queue' | 'log' | 'config' | 'registry'>) {
    this.wake = dispatchWaker(deps);
    this.batcher = new Batcher((items) => this.write(items), {
      // One write at a time makes the batches larger and the database's work per request smaller
      // (measured on PostgreSQL: about 0.6 ms of a write is per statement, 0.07 ms per request).
      maxInFlight: 1,
      maxBatch: MAX_BATCH,
      keysOf: (item) => [`${item.projectId} ${item.contact.email}`],
    });
  }

  track(item: TrackItem): Promise<TrackedRow> {
    return this.batcher.submit(item);
  }

  private async write(items: TrackItem[]): Promise<TrackedRow[]> {
    const dispatch = this.deps.registry.events.length > 0;
    const rows = this.deps.config.databaseDistribution === 'citus'
      ? await Promise.all(items.map((item) => this.deps.db.transaction((tx) => trackOne(tx, item, dispatch))))
      : await trackBatch(this.deps.db, items, dispatch);
    if (dispatch) this.wake();
    return rows;
  }
}

/**
 * One request's track on Citus, in its own transaction of statements on its project's node:
 * trackBatch's statement serves many projects at once and locks rows by a project read from its
 * input, which Citus cannot route (docs/architecture.md, "Distribution on Citus"). Same rules.
 */
async function trackOne(tx: Queryable, item: TrackItem, dispatch: boolean): Promise<TrackedRow> {
  const contact = await upsertContactByEmail(tx, item.projectId, item.contact);
  const changed = !contact.is_new && contact.was_subscribed !== null && contact.was_subscribed !== contact.subscribed;
  const events: NewEventRow[] = [{ id: item.event.id, contactId: contact.id, name: item.event.name, data: item.event.data, emailId: null }];
  if (changed) events.push({ id: item.event.subscriptionEventId, contactId: contact.id, name: subscriptionEventName(contact.subscribed), data: {}, emailId: null });
  await insertEvents(tx, item.projectId, events);
  if (dispatch) await insertDispatch(tx, item.projectId, events.map((event) => event.id));
  return { contact_id: contact.id, subscription_event_id: changed ? item.event.subscriptionEventId : null };
}
