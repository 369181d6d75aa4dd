import type { BenchContext, Scenario } from '../scenario.ts';

const SEEDED_EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const CONTACTS = 10_000;
const DAYS = 30;
// Rows per INSERT while seeding, so no single statement holds the whole load.
const SEED_BATCH = 1_000_000;

/**
 * Seeds SEEDED_EVENTS events over the last 30 days (email lifecycle mostly, some tracked) in SQL
 * with the server stopped, then rewinds the rollup so the running server counts them all: the
 * backfill a deployment with existing events goes through once. Returns the backfill's duration.
 */
async function seedEvents(ctx: BenchContext): Promise<number> {
  process.stderr.write(`[bench] seeding ${SEEDED_EVENTS} events over ${DAYS} days…\n`);
  await ctx.withServerStopped(async (db) => {
    await db.query(
      `INSERT INTO contacts (project_id, email, subscribed) SELECT $1, 'analytics-' || g || '@bench.test', true FROM generate_series(1, $2::int) g
       ON CONFLICT DO NOTHING`,
      [ctx.project.id, CONTACTS],
    );
    const contacts = await db.query<{ id: string }>('SELECT id FROM contacts WHERE project_id = $1 ORDER BY id LIMIT $2', [ctx.project.id, CONTACTS]);
    const ids = contacts.map((c) => c.id);
    for (let from = 0; from < SEEDED_EVENTS; from += SEED_BATCH) {
      // Per 100 events: 30 sent, 30 delivered, 20 opened (half first opens), 8 clicked, 2 bounced, 10 tracked.
      await db.query(
        `INSERT INTO events (project_id, contact_id, name, data, created_at)
         SELECT $1, ($2::uuid[])[(1 + g % array_length($2::uuid[], 1))::int],
                CASE WHEN g % 100 < 30 THEN 'email.sent' WHEN g % 100 < 60 THEN 'email.delivered' WHEN g % 100 < 80 THEN 'email.opened'
                     WHEN g % 100 < 88 THEN 'email.clicked' WHEN g % 100 < 90 THEN 'email.bounced' ELSE 'page-viewed' END,
                CASE WHEN g % 100 BETWEEN 60 AND 69 THEN '{"firstOpen": true}'::jsonb WHEN g % 100 BETWEEN 88 AND 89 THEN '{"bounceType": "hard"}'::jsonb
                     ELSE '{}'::jsonb END,
                now() - make_interval(secs => (g::float8 / $4) * $5 * 86400)
         FROM generate_series($3::bigint, $3::bigint + $6 - 1) g`,
        [ctx.project.id, ids, from, SEEDED_EVENTS, DAYS, Math.min(SEED_BATCH, SEEDED_EVENTS - from)],
      );
      process.stderr.write(`[bench]   ${Math.min(from + SEED_BATCH, SEEDED_EVENTS)} events\n`);
    }
    await db.query(`INSERT INTO event_names (project_id, name) VALUES ($1, 'page-viewed') ON CONFLICT DO NOTHING`, [ctx.project.id]);
    await db.exec('DELETE FROM event_counts; DELETE FROM event_totals; DELETE FROM email_counts');
    await db.exec(`UPDATE rollup_watermarks SET watermark = '-infinity' WHERE name = 'events'`);
    await db.exec('ANALYZE events');
  });
  const started = performance.now();
  const seededUpTo = Date.now();
  for (;;) {
    const res = await ctx.project.api.get('/analytics/top-events');
    if (res.body.upTo && Date.parse(res.body.upTo) >= seededUpTo) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`[bench] rollup backfill of ${SEEDED_EVENTS} events: ${seconds.toFixed(1)} s (${Math.round(SEEDED_EVENTS / seconds)} events/s)\n`);
  const check = await ctx.project.api.get(`/analytics/timeseries?from=${new Date(Date.now() - DAYS * 86400_000).toISOString()}`);
  const counted = Object.values(check.body.totals as Record<string, number>).reduce((a, b) => a + b, 0);
  process.stderr.write(`[bench] timeseries totals after backfill: ${JSON.stringify(check.body.totals)} (${counted} metric counts)\n`);
  // One request at a time, before the load: the latency of the query itself.
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    await ctx.project.api.get(timeseriesPath());
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  process.stderr.write(`[bench] sequential timeseries: median ${times[25]!.toFixed(1)} ms, max ${times.at(-1)!.toFixed(1)} ms\n`);
  return seconds;
}

const timeseriesPath = () => `/analytics/timeseries?from=${encodeURIComponent(new Date(Date.now() - DAYS * 86400_000).toISOString())}&interval=day`;

/**
 * GET /analytics/timeseries over 30 days, daily buckets, with 10M events in the project (
 * under 200 ms on PostgreSQL). It reads the rollup (96 rows a day), never the events.
 */
export const analyticsTimeseries: Scenario = {
  name: 'analytics-timeseries',
  description: `GET /analytics/timeseries, 30 days by day, over ${SEEDED_EVENTS} events (rollup backfilled first)`,
  setup: seedEvents,
  http: (ctx) => ({
    path: timeseriesPath(),
    headers: { authorization: `Bearer ${ctx.project.secretKey}` },
    expectStatus: 200,
  }),
};
