import type { Queryable } from '../db/index.ts';
import type { Deps, FieldUsage } from '../deps.ts';
import { badRequest, notFound } from '../errors.ts';
import {
  countContacts,
  countDataKeys,
  deleteDataKey,
  distinctValues,
  dropFieldFromStats,
  type FieldStat,
  type FieldType,
  findCachedStats,
  type KeyCounts,
  saveStats,
} from './contact-fields.queries.ts';

export const REFRESH_FIELD_STATS_JOB = 'contact-fields.refresh';

/** Cached stats older than this are served once more and refreshed in the background. */
export const FIELD_STATS_MAX_AGE_SECONDS = 120;
/** GET …/values reads at most this many contacts (bounded work at any project size). */
export const VALUES_SCAN_LIMIT = 50_000;
export const VALUES_LIMIT = 100;

/** The Contact resource's own fields (the API reference (Contact)), listed before the custom ones. */
const STANDARD_FIELDS: { name: string; type: FieldType }[] = [
  { name: 'id', type: 'string' },
  { name: 'email', type: 'string' },
  { name: 'subscribed', type: 'boolean' },
  { name: 'snoozedUntil', type: 'date' },
  { name: 'createdAt', type: 'date' },
  { name: 'updatedAt', type: 'date' },
];
const STANDARD_NAMES = new Set<string>(STANDARD_FIELDS.map((field) => field.name));

type FieldsDeps = Pick<Deps, 'db' | 'queue'>;

/**
 * A field named in a path: `plan` or `data.plan` address the custom data key `plan`; a bare
 * standard name (`email`, `createdAt`) addresses the standard field, `data.createdAt` a custom key
 * of that name. The `data.` prefix is stripped once.
 */
export function parseFieldName(raw: string): { key: string; standard: boolean } {
  const custom = raw.startsWith('data.');
  const key = custom ? raw.slice('data.'.length) : raw;
  if (!key) throw badRequest('Name a field: `plan` or `data.plan`.');
  return { key, standard: !custom && STANDARD_NAMES.has(key) };
}

const percent = (count: number, total: number) => (total === 0 ? 0 : Math.round((count * 1000) / total) / 10);

/** The majority kind of a key's values; a tie goes to the more general type (string first). */
function inferType(counts: KeyCounts): FieldType {
  const ranked: [FieldType, number][] = [
    ['string', counts.strings],
    ['number', counts.numbers],
    ['date', counts.dates],
    ['boolean', counts.booleans],
  ];
  return ranked.reduce((best, next) => (next[1] > best[1] ? next : best))[0];
}

/** Scans the project's contacts once and stores the result (the background job, or a first call). */
export async function computeFieldStats(db: Queryable, projectId: string): Promise<FieldStat[]> {
  const [{ total, snoozed }, keys] = [await countContacts(db, projectId), await countDataKeys(db, projectId)];
  const standard: FieldStat[] = STANDARD_FIELDS.map(({ name, type }) => ({
    name,
    type,
    standard: true,
    coverage: percent(name === 'snoozedUntil' ? snoozed : total, total),
  }));
  const custom: FieldStat[] = keys
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((counts) => ({ name: counts.key, type: inferType(counts), standard: false, coverage: percent(counts.present, total) }));
  const fields = [...standard, ...custom];
  await saveStats(db, projectId, total, fields);
  return fields;
}

/**
 * GET /contacts/fields: served from the per-project cache. The first call computes synchronously;
 * a stale cache is served as is while one background refresh per project is queued.
 */
export async function listFields(deps: FieldsDeps, projectId: string) {
  const cached = await findCachedStats(deps.db, projectId);
  if (!cached) return computeFieldStats(deps.db, projectId);
  if (cached.ageSeconds > FIELD_STATS_MAX_AGE_SECONDS) await queueStatsRefresh(deps, projectId);
  return cached.fields;
}

/** Queues a refresh; the queue's `short` policy keeps at most one waiting per project. */
export async function queueStatsRefresh(deps: Pick<Deps, 'queue'>, projectId: string, tx?: Queryable) {
  await deps.queue.send(REFRESH_FIELD_STATS_JOB, { projectId }, { singletonKey: projectId, ...(tx ? { tx } : {}) });
}

export async function listFieldValues(deps: FieldsDeps, projectId: string, field: string) {
  const { key, standard } = parseFieldName(field);
  if (standard) throw badRequest(`${key} is a standard field; values are listed for custom fields only.`);
  return { field: key, values: await distinctValues(deps.db, projectId, key, VALUES_SCAN_LIMIT, VALUES_LIMIT) };
}

/** DELETE /contacts/fields/{field}: removes the key from every contact of the project. */
export async function deleteField(deps: FieldsDeps, projectId: string, field: string) {
  const { key, standard } = parseFieldName(field);
  if (standard) throw badRequest(`${key} is a standard contact field and cannot be deleted.`);
  const updated = await deps.db.transaction(async (tx) => {
    const count = await deleteDataKey(tx, projectId, key);
    if (count > 0) await dropFieldFromStats(tx, projectId, key);
    return count;
  });
  if (updated === 0) throw notFound(`Field ${key}`);
  return { field: key, updated };
}

// --- Usage: where a field is referenced -------------------------------------------------------

/** GET /contacts/fields/{field}/usage: every capability's references, by kind. */
export async function fieldUsage(deps: Pick<Deps, 'db' | 'registry'>, projectId: string, field: string) {
  const parsed = parseFieldName(field);
  const usage: FieldUsage = { segments: [], campaigns: [], workflows: [] };
  for (const find of deps.registry.usage.fields) {
    const found = await find(deps.db, projectId, parsed);
    for (const kind of ['segments', 'campaigns', 'workflows'] as const) usage[kind].push(...(found[kind] ?? []));
  }
  return { field: parsed.key, ...usage };
}
