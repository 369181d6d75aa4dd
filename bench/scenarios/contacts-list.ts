import type { BenchContext, Scenario } from '../scenario.ts';

const SEEDED_CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const PAGE = 100;
// How far in the deep page starts: half the list, reached by following cursors.
const DEEP_PAGES = Math.floor(SEEDED_CONTACTS / PAGE / 2);

/**
 * Seeds SEEDED_CONTACTS contacts into the bench project once per server, in SQL with the server
 * stopped (through the API this would take longer than the whole benchmark).
 */
async function seedContacts(ctx: BenchContext): Promise<void> {
  const first = await ctx.project.api.get('/contacts?limit=1');
  if (first.body.total >= SEEDED_CONTACTS) return;
  process.stderr.write(`[bench] seeding ${SEEDED_CONTACTS} contacts…\n`);
  await ctx.withServerStopped(async (db) => {
    await db.query(
      `INSERT INTO contacts (project_id, email, subscribed, data, created_at, updated_at)
       SELECT $1, 'seed-' || g || '@bench.test', g % 10 <> 0,
              jsonb_build_object('plan', (ARRAY['free', 'pro', 'team'])[1 + g % 3], 'age', 18 + g % 60),
              now() - make_interval(secs => g), now()
         FROM generate_series(1, $2::int) g`,
      [ctx.project.id, SEEDED_CONTACTS],
    );
    await db.exec('ANALYZE contacts');
  });
}

const auth = (ctx: BenchContext) => ({ authorization: `Bearer ${ctx.project.secretKey}` });

/** The first page also counts every contact (the API reference: `total` only on the first request). */
export const contactsFirstPage: Scenario = {
  name: 'contacts-first-page',
  description: `GET /contacts?limit=${PAGE} (first page, with total) over ${SEEDED_CONTACTS} contacts`,
  setup: seedContacts,
  http: (ctx) => ({ path: `/contacts?limit=${PAGE}`, headers: auth(ctx), expectStatus: 200 }),
};

/** A page half-way through the list, reached by its keyset cursor: as cheap as any other page. */
export const contactsDeepPage: Scenario<string> = {
  name: 'contacts-deep-page',
  description: `GET /contacts?limit=${PAGE}&cursor=… at row ${DEEP_PAGES * PAGE} of ${SEEDED_CONTACTS}`,
  setup: async (ctx) => {
    await seedContacts(ctx);
    let cursor = '';
    for (let page = 0; page < DEEP_PAGES; page++) {
      const res = await ctx.project.api.get(`/contacts?limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      if (res.status !== 200 || !res.body.cursor) throw new Error(`walking pages failed at page ${page}: ${res.status}`);
      cursor = res.body.cursor;
    }
    return cursor;
  },
  http: (ctx, cursor) => ({ path: `/contacts?limit=${PAGE}&cursor=${encodeURIComponent(cursor)}`, headers: auth(ctx), expectStatus: 200 }),
};
