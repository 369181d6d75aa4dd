import { runRollup } from '../../src/analytics/rollup.service.ts';
import type { Db } from '../../src/db/index.ts';
import { fillNarrowCopy } from '../../src/segments/narrow-copy.ts';
import type { BenchContext, Measurement, Scenario } from '../scenario.ts';

const CONTACTS = Number(process.env.BENCH_SEGMENT_CONTACTS ?? 1_000_000);
const EVENTS_PER_CONTACT = 5;
const CHUNK = 100_000;
const EVENT_NAMES = ['page.view', 'signup', 'purchase', 'login', 'logout', 'cart.add', 'cart.remove', 'search', 'share', 'support'];

/** The audience of the segment-count bar: three data filters and one event filter (its count's plan: bench/plans.ts). */
export const SEGMENT_CONDITION = {
  logic: 'AND',
  groups: [
    {
      filters: [
        { field: 'data.plan', operator: 'equals', value: 'pro' },
        { field: 'data.age', operator: 'greaterThanOrEqual', value: 30 },
        { field: 'data.country', operator: 'equals', value: 'DE' },
        { field: 'event.purchase', operator: 'triggeredWithin', value: 30, unit: 'days' },
      ],
    },
  ],
};

/**
 * CONTACTS contacts (plan, age, country, company in data) and EVENTS_PER_CONTACT events each over
 * ten names and 180 days, seeded set-based in SQL with the server stopped, in chunks so progress
 * shows; then VACUUM ANALYZE, as autovacuum would have done on a table that size.
 */
async function seed(ctx: BenchContext): Promise<void> {
  const first = await ctx.project.api.get('/contacts?limit=1');
  if (first.body.total >= CONTACTS) return;
  await ctx.withServerStopped(async (db) => {
    for (let from = 1; from <= CONTACTS; from += CHUNK) {
      const to = Math.min(CONTACTS, from + CHUNK - 1);
      process.stderr.write(`[bench] segment-count: contacts and events ${from}–${to} of ${CONTACTS}…\n`);
      await db.query(
        `WITH seeded AS (
           INSERT INTO contacts (project_id, email, subscribed, data, created_at, updated_at)
           SELECT $1, 'seg-' || g || '@bench.test', g % 10 <> 0,
                  jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3], 'age', 18 + g % 60,
                                     'country', (ARRAY['DE', 'FR', 'US', 'GB', 'ES'])[1 + (g / 7) % 5], 'company', 'Company ' || g % 5000),
                  now() - make_interval(secs => g), now()
             FROM generate_series($2::int, $3::int) g
           RETURNING id
         )
         INSERT INTO events (project_id, contact_id, name, created_at)
         SELECT $1, s.id, ($4::text[])[1 + floor(random() * 10)::int], now() - random() * interval '180 days'
           FROM seeded s, generate_series(1, $5::int)`,
        [ctx.project.id, from, to, EVENT_NAMES, EVENTS_PER_CONTACT],
      );
    }
    await db.query(`INSERT INTO event_names (project_id, name) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, [ctx.project.id, EVENT_NAMES]);
    await db.exec('VACUUM ANALYZE contacts');
    await db.exec('VACUUM ANALYZE events');
    // The analytics rollup counts the seeded events here, as it counts a live project's events as
    // they arrive: otherwise its catch-up over 5M events runs beside the measured counts.
    process.stderr.write('[bench] segment-count: analytics rollup of the seeded events…\n');
    while (!(await runRollup(db, 60_000, [])).caughtUp) {}
  });
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** POST /segments/{id}/refresh one at a time: at least 10 counts, then up to the duration (at most 200). */
async function measure(ctx: BenchContext, id: string) {
  const latencies: number[] = [];
  let non2xx = 0;
  let memberCount = 0;
  const started = performance.now();
  while (latencies.length < 10 || (performance.now() - started < ctx.durationSeconds * 1000 && latencies.length < 200)) {
    const t0 = performance.now();
    const res = await ctx.project.api.post(`/segments/${id}/refresh`);
    latencies.push(performance.now() - t0);
    if (res.status !== 200) non2xx++;
    else memberCount = res.body.memberCount;
  }
  const elapsed = (performance.now() - started) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    reqPerSec: Math.round((latencies.length / elapsed) * 100) / 100,
    p50Ms: Math.round(percentile(sorted, 50)),
    p99Ms: Math.round(percentile(sorted, 99)),
    minMs: Math.round(sorted[0]!),
    durationSeconds: Math.round(elapsed),
    samples: latencies.length,
    non2xx,
    memberCount,
  };
}

/**
 * The segment's live count, one request at a time (POST /segments/{id}/refresh recounts it in one
 * statement): the latency of the count itself, not of a queue of concurrent ones.
 */
export const segmentCount: Scenario<{ id: string }> = {
  name: 'segment-count',
  description: `POST /segments/{id}/refresh (3 data filters + 1 event filter) over ${CONTACTS} contacts and ${CONTACTS * EVENTS_PER_CONTACT} events, sequential`,
  // Its own server: its own seeded project, and no background count refresh during the measure.
  server: { env: { SEGMENT_REFRESH_INTERVAL_SECONDS: '86400' } },
  setup: async (ctx) => {
    await seed(ctx);
    // The narrow copy of the condition's keys (docs/decisions/segments.md, "The narrow copy"), as the
    // background job leaves it once the segment is saved: filled here, timed, before the measure.
    if (ctx.db !== 'citus') {
      await ctx.withServerStopped(async (db) => {
        const started = performance.now();
        await fillNarrowCopy(db, ctx.project.id, ['plan', 'age', 'country']);
        await db.exec('VACUUM ANALYZE contact_slots');
        // The seed's and the copy's writes flushed, as the checkpointer would have done before a
        // marketer opens the builder: the measure is the count, not a checkpoint running beside it.
        if (ctx.db !== 'embedded') await db.exec('CHECKPOINT');
        process.stderr.write(`[bench] segment-count: narrow copy filled in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      });
    }
    const created = await ctx.project.api.post('/segments', { name: 'Bench audience', condition: SEGMENT_CONDITION });
    if (created.status !== 201) throw new Error(`segment create failed: ${created.status} ${created.text}`);
    return { id: created.body.id };
  },
  run: async (ctx, { id }): Promise<Measurement> => {
    const narrow = await measure(ctx, id);
    // The baseline in the same run: the same counts over contacts.data, the copy's slots set back
    // to not ready (as before they are filled), then ready again.
    const setReady = (ready: boolean) => (db: Db) => db.query('UPDATE contact_slot_keys SET ready = $2 WHERE project_id = $1', [ctx.project.id, ready]).then(() => {});
    let baseline: Awaited<ReturnType<typeof measure>> | undefined;
    if (ctx.db !== 'citus') {
      await ctx.withServerStopped(setReady(false));
      baseline = await measure(ctx, id);
      await ctx.withServerStopped(setReady(true));
    }
    return {
      reqPerSec: narrow.reqPerSec,
      p50Ms: narrow.p50Ms,
      p99Ms: narrow.p99Ms,
      errors: 0,
      non2xx: narrow.non2xx + (baseline?.non2xx ?? 0),
      durationSeconds: narrow.durationSeconds,
      connections: 1,
      // Counts per second, one at a time: not comparable to the hello-world's requests per second.
      unit: 'counts/s (sequential)',
      samples: narrow.samples,
      minMs: narrow.minMs,
      memberCount: narrow.memberCount,
      contacts: CONTACTS,
      events: CONTACTS * EVENTS_PER_CONTACT,
      ...(baseline && {
        overContacts: { p50Ms: baseline.p50Ms, p99Ms: baseline.p99Ms, minMs: baseline.minMs, samples: baseline.samples, memberCount: baseline.memberCount },
        p50RatioToContacts: Math.round((narrow.p50Ms / baseline.p50Ms) * 100) / 100,
      }),
    };
  },
};
