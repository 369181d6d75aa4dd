import * as analytics from '../analytics/analytics.queries.ts';
import { ratesOf, toMetrics } from '../analytics/metrics.ts';
import { resolveWindow } from '../analytics/window.ts';
import type { Deps } from '../deps.ts';
import { badRequest } from '../errors.ts';
import { isReservedEventName } from '../events/events.schemas.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, pageOf } from '../pagination.ts';
import * as queries from './activity.queries.ts';
import { findUpcoming } from './upcoming.ts';

type ActivityDeps = Pick<Deps, 'db' | 'config' | 'registry'>;

const CURSOR = { sort: 'activity', dir: 'desc' as const };

/** `type=email.opened` is one name; `type=email.*` every name of the family. */
function parseType(type: string | undefined): queries.TypeFilter | undefined {
  if (type === undefined) return undefined;
  if (type.endsWith('.*')) {
    if (type.length < 3) throw badRequest('`type` must name an event type or a family such as email.*.');
    return { prefix: type.slice(0, -1) };
  }
  return { exact: type };
}

/**
 * GET /activity (docs/decisions/contacts-and-events.md): the project's events — email lifecycle, subscription changes,
 * segment membership, campaign and workflow milestones and tracked events — newest first.
 * The first page's `total` is exact for one contact, and from the rollup otherwise (a few seconds
 * behind), so the first page never counts millions of rows.
 */
export async function listActivity(deps: ActivityDeps, projectId: string, input: { limit?: number; cursor?: string; type?: string; contactId?: string }) {
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const type = parseType(input.type);
  const before = input.cursor ? decodeCursor(secret, input.cursor, { ...CURSOR, checkValue: isCursorTimestamp }) : undefined;
  const rows = await queries.listActivity(deps.db, projectId, { type, contactId: input.contactId, before, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at: CURSOR,
    map: (row) => ({
      id: row.id,
      type: row.name,
      timestamp: new Date(row.created_at).toISOString(),
      contact: { id: row.contact_id, email: row.email },
      data: row.data,
      ...(row.stream ? { stream: row.stream } : {}),
    }),
    total: input.cursor
      ? undefined
      : async (page) =>
          input.contactId
            ? await queries.countContactActivity(deps.db, projectId, input.contactId, type)
            : Math.max(await queries.countActivityFromRollup(deps.db, projectId, type), page.length),
  });
}

/** GET /activity/stats: email totals and rates, subscription changes and tracked events over a window. */
export async function activityStats(deps: ActivityDeps, projectId: string, input: { from?: string; to?: string }) {
  const window = resolveWindow({ ...input, interval: 'day' });
  const emails = toMetrics(await analytics.emailTotals(deps.db, projectId, window.from, window.to));
  const named = await analytics.countEventsNamed(deps.db, projectId, window.from, window.to, ['contact.subscribed', 'contact.unsubscribed']);
  const tracked = await analytics.countCustomEvents(deps.db, projectId, window.from, window.to);
  const upTo = await analytics.rollupWatermark(deps.db);
  return {
    from: window.from.toISOString(),
    to: window.to.toISOString(),
    upTo: upTo?.toISOString() ?? null,
    emails,
    rates: ratesOf(emails),
    contacts: { subscribed: named.get('contact.subscribed') ?? 0, unsubscribed: named.get('contact.unsubscribed') ?? 0 },
    events: { tracked },
  };
}

/** At most this many are counted by /activity/recent-count; beyond it the answer says `capped`. */
export const RECENT_COUNT_CAP = 10_000;

/** GET /activity/recent-count: new activity since a moment, cheap enough to poll (bounded). */
export async function recentCount(deps: ActivityDeps, projectId: string, input: { since: string; type?: string }) {
  const since = new Date(input.since);
  const until = new Date();
  const counted = await queries.countRecent(deps.db, projectId, since, RECENT_COUNT_CAP, parseType(input.type));
  return { since: since.toISOString(), until: until.toISOString(), count: Math.min(counted, RECENT_COUNT_CAP), capped: counted > RECENT_COUNT_CAP };
}

const FAMILIES = new Set(['email', 'contact', 'segment', 'campaign', 'workflow']);

/** GET /activity/types: every type the project has recorded, with its family and whether the service emits it. */
export async function activityTypes(deps: ActivityDeps, projectId: string) {
  const rows = await queries.listTypes(deps.db, projectId);
  return {
    data: rows.map((row) => {
      const service = isReservedEventName(row.name);
      const family = row.name.split('.')[0]!;
      return { type: row.name, category: service || FAMILIES.has(family) ? family : 'custom', service, firstSeenAt: new Date(row.first_seen_at).toISOString() };
    }),
  };
}

const HOUR_MS = 3600 * 1000;

/** GET /activity/upcoming: scheduled campaigns and waiting workflow steps due within `hours`. */
export async function upcoming(deps: ActivityDeps, projectId: string, input: { hours?: number; limit?: number }) {
  const hours = input.hours ?? 24 * 7;
  const until = new Date(Date.now() + hours * HOUR_MS);
  const data = await findUpcoming(deps.registry.upcoming, deps.db, projectId, until, Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE));
  return { until: until.toISOString(), data };
}
