import { type ContactUpsert, LOCK_EXISTING_CONTACTS } from '../contacts/contacts.queries.ts';
import type { Queryable } from '../db/index.ts';

export type TrackItem = {
  projectId: string;
  contact: ContactUpsert;
  event: { id: string; name: string; data: Record<string, unknown>; subscriptionEventId: string };
};
export type TrackedRow = { contact_id: string; subscription_event_id: string | null };

/**
 * POST /v1/track for many requests in one statement (src/db/batcher.ts; at most one item per
 * project and email): upsert each contact with the data write rules, store each event and, when
 * `subscribed` changed on an existing contact, its contact.subscribed/unsubscribed event. Existing
 * contacts are locked first, in (project, email) order, and inserted in the same order, so two
 * batches running at once lock in one order. With `dispatch`, the events are also queued for their
 * subscribers (event_dispatch). Returns one row per item, in order.
 */
export async function trackBatch(db: Queryable, items: TrackItem[], dispatch: boolean): Promise<TrackedRow[]> {
  const input = items.map((item, ord) => ({
    ord,
    project_id: item.projectId,
    email: item.contact.email,
    subscribed: item.contact.subscribed,
    when_new: item.contact.subscribedWhenNew,
    set: item.contact.data.set,
    unset: item.contact.data.unset,
    event_id: item.event.id,
    name: item.event.name,
    data: item.event.data,
    sub_event_id: item.event.subscriptionEventId,
  }));
  const rows = await db.query<TrackedRow & { ord: number }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(ord int, project_id uuid, email text, subscribed boolean, when_new boolean,
         set jsonb, unset text[], event_id uuid, name text, data jsonb, sub_event_id uuid)
     ), old AS (
       ${LOCK_EXISTING_CONTACTS('c.project_id, c.id, c.subscribed')}
     ), upserted AS (
       INSERT INTO contacts AS c (project_id, email, subscribed, data)
       SELECT i.project_id, i.email, coalesce(i.subscribed, i.when_new), i.set - i.unset
       FROM input i, (SELECT count(*) FROM old) AS old_first
       ORDER BY i.project_id, i.email
       ON CONFLICT (project_id, email) DO UPDATE SET
         subscribed = coalesce((SELECT i.subscribed FROM input i WHERE i.project_id = excluded.project_id AND i.email = excluded.email), c.subscribed),
         snoozed_until = CASE WHEN (SELECT i.subscribed FROM input i WHERE i.project_id = excluded.project_id AND i.email = excluded.email) IS NULL
           THEN c.snoozed_until END,
         data = (c.data || excluded.data) - (SELECT i.unset FROM input i WHERE i.project_id = excluded.project_id AND i.email = excluded.email),
         updated_at = excluded.updated_at
       RETURNING c.project_id, c.id, c.email, c.subscribed, c.xmax::text = '0' AS is_new
     ), written AS (
       SELECT i.*, u.id AS contact_id, u.subscribed AS now_subscribed,
         NOT u.is_new AND o.subscribed IS NOT NULL AND o.subscribed <> u.subscribed AS changed
       FROM input i
       JOIN upserted u ON u.project_id = i.project_id AND u.email = i.email
       LEFT JOIN old o ON o.project_id = u.project_id AND o.id = u.id
     ), inserted AS (
       INSERT INTO events (project_id, id, contact_id, name, data)
       SELECT project_id, event_id, contact_id, name, data FROM written
       UNION ALL
       SELECT project_id, sub_event_id, contact_id, CASE WHEN now_subscribed THEN 'contact.subscribed' ELSE 'contact.unsubscribed' END, '{}'::jsonb
       FROM written WHERE changed
       RETURNING project_id, id, name
     ), names AS (
       INSERT INTO event_names (project_id, name) SELECT DISTINCT project_id, name FROM inserted
       ON CONFLICT DO NOTHING
     ), dispatch AS (
       INSERT INTO event_dispatch (project_id, event_ids)
       SELECT project_id, array_agg(id) FROM inserted WHERE $2::boolean GROUP BY project_id
     )
     SELECT ord, contact_id, CASE WHEN changed THEN sub_event_id END AS subscription_event_id FROM written`,
    [JSON.stringify(input), dispatch],
  );
  const byOrd = new Map(rows.map((row) => [row.ord, row]));
  return items.map((_, ord) => byOrd.get(ord)!);
}
