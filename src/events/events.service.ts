import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/index.ts';
import type { Deps, EventUsage } from '../deps.ts';
import { badRequest, notFound } from '../errors.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, type Page, pageOf } from '../pagination.ts';
import * as queries from './events.queries.ts';
import { type EventRow, insertEvents } from './events.queries.ts';
import type { EventItem } from './events.schemas.ts';

export type EventInput = { contactId: string; name: string; data?: Record<string, unknown>; emailId?: string | null };

/**
 * Inserts events and hands them to the worker (never runs triggers in the request): one
 * event_dispatch row in the same transaction, which the worker's events.dispatch job drains. The
 * capabilities always include subscribers (webhook endpoints, workflow triggers: src/modules.ts).
 */
export async function recordEvents(tx: Queryable, projectId: string, events: EventInput[]): Promise<string[]> {
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
  await queries.insertDispatch(tx, projectId, eventIds);
  return eventIds;
}

export { subscriptionEventName } from './events.schemas.ts';

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

function toEventItem(row: EventRow): EventItem {
  return { id: row.id, name: row.name, contactId: row.contact_id, email: row.email, emailId: row.email_id, data: row.data, createdAt: iso(row.created_at) };
}

export type ListEventsInput = { limit?: number; cursor?: string; name?: string; contactId?: string };

/** GET /events and GET /events/contact/{id}: newest first, cursor-paginated like GET /contacts. */
export async function listEvents(deps: Pick<Deps, 'db' | 'config'>, projectId: string, input: ListEventsInput): Promise<Page<EventItem>> {
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const before = input.cursor ? decodeCursor(secret, input.cursor, { sort: 'events', dir: 'desc', checkValue: isCursorTimestamp }) : undefined;
  const filters = { name: input.name, contactId: input.contactId };
  const rows = await queries.listEvents(deps.db, projectId, { ...filters, before, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at: { sort: 'events', dir: 'desc' },
    map: toEventItem,
    total: input.cursor ? undefined : () => queries.countEvents(deps.db, projectId, filters),
  });
}

export async function listContactEvents(deps: Pick<Deps, 'db' | 'config'>, projectId: string, contactId: string, input: ListEventsInput) {
  if (!(await queries.contactExists(deps.db, projectId, contactId))) throw notFound('Contact');
  return listEvents(deps, projectId, { ...input, contactId });
}

const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_STATS_DAYS = 366;

/**
 * GET /events/stats: counts per name and per UTC day over [from, to) (default: the last 30 days).
 * Days without events are listed with 0 so the series can be charted as is.
 */
export async function eventStats(deps: Pick<Deps, 'db'>, projectId: string, input: { from?: string; to?: string; name?: string }) {
  const to = input.to ? new Date(input.to) : new Date();
  const from = input.from ? new Date(input.from) : new Date(to.getTime() - 30 * DAY_MS);
  if (from >= to) throw badRequest('`from` must be before `to`.');
  if (to.getTime() - from.getTime() > MAX_STATS_DAYS * DAY_MS) throw badRequest(`The window is at most ${MAX_STATS_DAYS} days.`);
  const rows = await queries.countEventsByDayAndName(deps.db, projectId, { from: from.toISOString(), to: to.toISOString(), name: input.name });
  const byName = new Map<string, number>();
  const byDay = new Map<string, number>();
  for (let day = Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), from.getUTCDate()); day < to.getTime(); day += DAY_MS) {
    byDay.set(new Date(day).toISOString().slice(0, 10), 0);
  }
  let total = 0;
  for (const row of rows) {
    total += row.count;
    byName.set(row.name, (byName.get(row.name) ?? 0) + row.count);
    byDay.set(row.day, (byDay.get(row.day) ?? 0) + row.count);
  }
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    total,
    byName: [...byName].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)),
    byDay: [...byDay].map(([date, count]) => ({ date, count })),
  };
}

export async function eventNames(deps: Pick<Deps, 'db'>, projectId: string) {
  const rows = await queries.listEventNames(deps.db, projectId);
  return { data: rows.map((row) => ({ name: row.name, firstSeenAt: iso(row.first_seen_at) })) };
}

/** GET /events/{eventName}/usage: every capability's references (a Capability's `usage.events`), by kind. */
export async function eventUsage(deps: Pick<Deps, 'db' | 'registry'>, projectId: string, eventName: string): Promise<EventUsage> {
  const usage: EventUsage = { segments: [], campaigns: [], workflows: [] };
  for (const find of deps.registry.usage.events) {
    const found = await find(deps.db, projectId, eventName);
    for (const kind of ['segments', 'campaigns', 'workflows'] as const) usage[kind].push(...(found[kind] ?? []));
  }
  return usage;
}

export async function deleteEvents(deps: Pick<Deps, 'db'>, projectId: string, eventName: string) {
  return { deleted: await queries.deleteEventsNamed(deps.db, projectId, eventName) };
}
