import { lockContactsByEmail, type UpsertedContact, upsertContactsByEmail } from '../contacts/contacts.queries.ts';
import { Batcher } from '../db/batcher.ts';
import type { Db, Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { wakeDispatch } from '../events/events.jobs.ts';
import { insertDispatch, insertEvents, type NewEventRow } from '../events/events.queries.ts';
import { subscriptionEventName } from '../events/events.schemas.ts';
import { type TrackedRow, type TrackItem, trackBatch } from './track.queries.ts';

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

  constructor(private readonly deps: Pick<Deps, 'db' | 'queue' | 'log' | 'config' | 'registry'>) {
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
    const rows = this.deps.config.databaseDistribution === 'citus' ? await trackPerProject(this.deps.db, items, dispatch) : await trackBatch(this.deps.db, items, dispatch);
    if (dispatch) wakeDispatch(this.deps);
    return rows;
  }
}

/**
 * The batch on Citus: one transaction per project, of router statements (each runs on the
 * project's node alone), since trackBatch's statement serves many projects at once and locks rows
 * by a project read from its input, which Citus cannot route (docs/architecture.md, "Distribution
 * on Citus"). Same rules: the contacts upserted per value of `subscribed` and keys to unset, then
 * the events, their names and, on the coordinator, their event_dispatch row. Rows in item order.
 */
async function trackPerProject(db: Db, items: TrackItem[], dispatch: boolean): Promise<TrackedRow[]> {
  const byProject = groupBy(
    items.map((item, ord) => ({ item, ord })),
    ({ item }) => item.projectId,
  );
  const rows: TrackedRow[] = [];
  await Promise.all(
    [...byProject].map(([projectId, entries]) =>
      db.transaction(async (tx) => {
        const written = await trackProject(
          tx,
          projectId,
          entries.map(({ item }) => item),
          dispatch,
        );
        entries.forEach(({ ord }, i) => (rows[ord] = written[i]!));
      }),
    ),
  );
  return rows;
}

async function trackProject(tx: Queryable, projectId: string, items: TrackItem[], dispatch: boolean): Promise<TrackedRow[]> {
  const contacts = new Map<string, UpsertedContact>();
  const shapes = groupBy(items, (item) => JSON.stringify([item.contact.subscribed, item.contact.subscribedWhenNew, item.contact.data.unset]));
  // Several upserts: every existing contact of the batch is locked first, in one order.
  if (shapes.size > 1)
    await lockContactsByEmail(
      tx,
      projectId,
      items.map((item) => item.contact.email),
    );
  for (const group of shapes.values()) {
    const { subscribed, subscribedWhenNew, data } = group[0]!.contact;
    const rows = group.map((item) => ({ projectId, email: item.contact.email, set: item.contact.data.set }));
    const upserted = await upsertContactsByEmail(tx, rows, { subscribed, subscribedWhenNew, unset: data.unset }, { oneProject: true });
    upserted.forEach((contact) => contacts.set(contact.email, contact));
  }
  const events: NewEventRow[] = [];
  const tracked = items.map((item) => {
    const contact = contacts.get(item.contact.email)!;
    const changed = !contact.is_new && contact.was_subscribed !== null && contact.was_subscribed !== contact.subscribed;
    events.push({ id: item.event.id, contactId: contact.id, name: item.event.name, data: item.event.data, emailId: null });
    if (changed) events.push({ id: item.event.subscriptionEventId, contactId: contact.id, name: subscriptionEventName(contact.subscribed), data: {}, emailId: null });
    return { contact_id: contact.id, subscription_event_id: changed ? item.event.subscriptionEventId : null };
  });
  await insertEvents(tx, projectId, events);
  if (dispatch)
    await insertDispatch(
      tx,
      projectId,
      events.map((event) => event.id),
    );
  return tracked;
}

/** Node 20 has no Map.groupBy: the items by key, each list in the items' order. */
function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}
