import { writeFileSync } from 'node:fs';
import { type Audience, breakdownAudience } from '../../src/campaigns/campaign-sending.queries.ts';
import { countContacts, listContacts } from '../../src/contacts/contacts.queries.ts';
import type { Db, Queryable } from '../../src/db/index.ts';
import { countMembers } from '../../src/segments/segments.queries.ts';
import { membersOf } from '../../src/segments/segments.service.ts';
import type { BenchContext, Measurement, Scenario } from '../scenario.ts';
import { percentile, SEGMENT_CONDITION } from './segment-count.ts';

const CONTACTS = Number(process.env.BENCH_SCALE_CONTACTS ?? 10_000_000);
const CHUNK = 1_000_000;
const PAGE = 100;
// Matches seed-424242 and its longer neighbours: about CONTACTS / 1,000,000 + 11 contacts.
const SEARCH = 'seed-424242';
/** segment-count's data filters without its event filter: the 10M project has no events (segment-count measures that at 1M). */
const CONDITION = {
  ...SEGMENT_CONDITION,
  groups: SEGMENT_CONDITION.groups.map((group) => ({ ...group, filters: group.filters.filter((filter) => filter.field.startsWith('data.')) })),
};

/**
 * CONTACTS contacts (plan, age, country in data; one in ten unsubscribed) and one in a hundred
 * suppressed, seeded set-based with the server stopped, a million at a time so progress shows.
 */
async function seed(ctx: BenchContext): Promise<void> {
  const first = await ctx.project.api.get('/contacts?limit=1');
  if (first.body.total >= CONTACTS) return;
  await ctx.withServerStopped(async (db) => {
    for (let from = 1; from <= CONTACTS; from += CHUNK) {
      const to = Math.min(CONTACTS, from + CHUNK - 1);
      process.stderr.write(`[bench] contacts-scale: contacts ${from}–${to} of ${CONTACTS}…\n`);
      await db.query(
        `INSERT INTO contacts (project_id, email, subscribed, data, created_at, updated_at)
         SELECT $1, 'seed-' || g || '@bench.test', g % 10 <> 0,
                jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3], 'age', 18 + g % 60,
                                   'country', (ARRAY['DE', 'FR', 'US', 'GB', 'ES'])[1 + (g / 7) % 5]),
                now() - make_interval(secs => g), now()
           FROM generate_series($2::int, $3::int) g`,
        [ctx.project.id, from, to],
      );
    }
    await db.query(
      `INSERT INTO suppressions (project_id, email, reason)
       SELECT $1, 'seed-' || g || '@bench.test', 'manual' FROM generate_series(1, $2::int, 100) g ON CONFLICT DO NOTHING`,
      [ctx.project.id, CONTACTS],
    );
    await db.exec('VACUUM ANALYZE contacts');
    await db.exec('VACUUM ANALYZE suppressions');
  });
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** `samples` requests one after another; the latencies' p50, p99 and the first (cold) one. */
async function sequential(samples: number, request: () => Promise<{ status: number }>): Promise<{ coldMs: number; p50Ms: number; p99Ms: number; non2xx: number }> {
  const latencies: number[] = [];
  let non2xx = 0;
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    const res = await request();
    latencies.push(performance.now() - t0);
    if (res.status < 200 || res.status >= 300) non2xx++;
  }
  const cold = latencies[0]!;
  const warm = latencies.slice(1).sort((a, b) => a - b);
  return { coldMs: round(cold), p50Ms: round(percentile(warm, 50)), p99Ms: round(percentile(warm, 99)), non2xx };
}

/** `connections` loops asking for the first page for `seconds`: its latency under load. */
async function concurrent(ctx: BenchContext, seconds: number): Promise<{ p50Ms: number; p99Ms: number; reqPerSec: number; non2xx: number }> {
  const latencies: number[] = [];
  let non2xx = 0;
  const until = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: ctx.connections }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const res = await ctx.project.api.get(`/contacts?limit=${PAGE}`);
        latencies.push(performance.now() - t0);
        if (res.status !== 200) non2xx++;
      }
    }),
  );
  const sorted = latencies.sort((a, b) => a - b);
  return { p50Ms: round(percentile(sorted, 50)), p99Ms: round(percentile(sorted, 99)), reqPerSec: Math.round(latencies.length / ((performance.now() - started) / 1000)), non2xx };
}

/** A Queryable that records what a product query function sends, and answers one empty row. */
function recording(statements: { name: string; sql: string; params: unknown[] }[], name: string): Queryable {
  return {
    query: async (sql, params) => {
      statements.push({ name, sql: sql.trim(), params: [...(params ?? [])] });
      return [{ total: 0, count: 0 }] as never[];
    },
    exec: async () => {},
  };
}

/**
 * The plans, EXPLAIN (ANALYZE, BUFFERS), of the statements behind each measured request, built by
 * the product's own query functions with the bench project's values, written to
 * bench/plans/contacts-scale-<db>.txt.
 */
async function writePlans(ctx: BenchContext, segmentId: string): Promise<void> {
  await ctx.withServerStopped(async (db: Db) => {
    const statements: { name: string; sql: string; params: unknown[] }[] = [];
    const projectId = ctx.project.id;
    const firstPage = { sort: 'createdAt', dir: 'desc', limit: PAGE + 1 } as const;
    await listContacts(recording(statements, 'GET /contacts: first page'), projectId, firstPage);
    await countContacts(recording(statements, 'GET /contacts: total (counted at most every 10 s, answered from the last count meanwhile)'), projectId, {});
    await listContacts(recording(statements, `GET /contacts?search=${SEARCH}: first page`), projectId, { ...firstPage, search: SEARCH });
    await countContacts(recording(statements, `GET /contacts?search=${SEARCH}: total (exact below 10,000)`), projectId, { search: SEARCH });
    const everyone: Audience = { predicate: 'c.project_id = $1', params: [projectId] };
    await breakdownAudience(recording(statements, 'POST /campaigns/audience (ALL, MARKETING): the breakdown'), everyone, true);
    const members = await membersOf(db, projectId, { id: segmentId, type: 'DYNAMIC', condition: CONDITION as never });
    await countMembers(recording(statements, 'POST /segments/{id}/refresh: the count (3 data filters)'), members);
    const sections: string[] = [];
    for (const statement of statements) {
      const rows = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params);
      sections.push(`## ${statement.name}\n\n${statement.sql}\n\n${rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
    }
    const header = `# Plans at ${CONTACTS.toLocaleString('en')} contacts (${ctx.db}), written by the contacts-scale bench scenario\n\n`;
    writeFileSync(new URL(`../plans/contacts-scale-${ctx.db}.txt`, import.meta.url), header + sections.join('\n'));
  });
}

/**
 * A project of ten million contacts: the contacts list's first page (one at a time, and under
 * `connections` at once), a search, the audience check of a campaign to everyone and a segment's
 * count, each one request at a time after a first (cold) one; then the plans of their statements.
 */
export const contactsScale: Scenario<{ segmentId: string }> = {
  name: 'contacts-scale',
  description: `GET /contacts first page, a search, POST /campaigns/audience and a segment count over ${CONTACTS} contacts`,
  databases: ['postgres'],
  // Its own server and project (the settings differ from segment-count's): no background segment
  // refresh or domain check during the measure.
  server: { env: { SEGMENT_REFRESH_INTERVAL_SECONDS: '86400', DOMAIN_CHECK_INTERVAL_SECONDS: '3600' } },
  setup: async (ctx) => {
    await seed(ctx);
    const created = await ctx.project.api.post('/segments', { name: 'Scale audience', condition: CONDITION });
    if (created.status !== 201) throw new Error(`segment create failed: ${created.status} ${created.text}`);
    return { segmentId: created.body.id };
  },
  run: async (ctx, { segmentId }): Promise<Measurement> => {
    const api = ctx.project.api;
    const started = performance.now();
    const firstPage = await sequential(101, () => api.get(`/contacts?limit=${PAGE}`));
    const firstPageLoaded = await concurrent(ctx, ctx.durationSeconds);
    const search = await sequential(11, () => api.get(`/contacts?limit=${PAGE}&search=${SEARCH}`));
    const audience = await sequential(6, () => api.post('/campaigns/audience', { audienceType: 'ALL', type: 'MARKETING' }));
    const segment = await sequential(6, () => api.post(`/segments/${segmentId}/refresh`));
    await writePlans(ctx, segmentId);
    return {
      reqPerSec: firstPageLoaded.reqPerSec,
      p50Ms: firstPageLoaded.p50Ms,
      p99Ms: firstPageLoaded.p99Ms,
      errors: 0,
      non2xx: firstPage.non2xx + firstPageLoaded.non2xx + search.non2xx + audience.non2xx + segment.non2xx,
      durationSeconds: Math.round((performance.now() - started) / 1000),
      connections: ctx.connections,
      unit: `first pages/s under ${ctx.connections} connections; the rest one request at a time (coldMs: the first request)`,
      contacts: CONTACTS,
      firstPage,
      search,
      audience,
      segment,
    };
  },
};
