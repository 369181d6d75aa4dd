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
  });
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

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
    const created = await ctx.project.api.post('/segments', { name: 'Bench audience', condition: SEGMENT_CONDITION });
    if (created.status !== 201) throw new Error(`segment create failed: ${created.status} ${created.text}`);
    return { id: created.body.id };
  },
  run: async (ctx, { id }): Promise<Measurement> => {
    const latencies: number[] = [];
    let non2xx = 0;
    let memberCount = 0;
    const started = performance.now();
    // At least 10 samples, and at most the configured duration beyond that.
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
      errors: 0,
      non2xx,
      durationSeconds: Math.round(elapsed),
      connections: 1,
      // Counts per second, one at a time: not comparable to the hello-world's requests per second.
      unit: 'counts/s (sequential)',
      samples: latencies.length,
      minMs: Math.round(sorted[0]!),
      memberCount,
      contacts: CONTACTS,
      events: CONTACTS * EVENTS_PER_CONTACT,
    };
  },
};
