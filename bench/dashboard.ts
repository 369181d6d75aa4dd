// `npm run bench:dashboard`: what a user waits for in the dashboard, in one run on this machine
// (TEST_DATABASE_URL=postgres://… runs it on PostgreSQL, as the test kit does).
// 1. The first page's JavaScript: every script the browser fetches to show /login, raw and gzip.
// 2. Time to the contacts table's first paint (navigation start → the first row in the DOM) in a
//    fresh browser context, for a project of 1,000,000 contacts and, as the baseline measured in
//    the same run, for a project of 10; reported as milliseconds (median of runs) and their ratio.
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { createProject, type TestProject } from '../test/kit/accounts.ts';
import { ensureDashboardBuilt, launchBrowser, openPage, pageAs } from '../test/kit/browser.ts';
import { startTestServer, type TestServer } from '../test/kit/server.ts';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const RUNS = 7;
const log = (message: string) => process.stderr.write(`${message}\n`);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function firstPageScripts(browser: Browser, server: TestServer) {
  const page = await openPage(browser, server.url);
  const scripts: { url: string; raw: number; gzip: number }[] = [];
  page.on('response', async (response) => {
    if (response.request().resourceType() !== 'script') return;
    const body = await response.body();
    scripts.push({ url: new URL(response.url()).pathname, raw: body.length, gzip: gzipSync(body, { level: 9 }).length });
  });
  await page.goto('/login');
  await page.getByRole('button', { name: 'Log in' }).waitFor();
  await page.waitForLoadState('networkidle');
  await page.context().close();
  return { files: scripts.length, raw: scripts.reduce((s, f) => s + f.raw, 0), gzip: scripts.reduce((s, f) => s + f.gzip, 0) };
}

async function seed(server: TestServer, project: TestProject, count: number) {
  const started = Date.now();
  await server.deps.db.query(
    `INSERT INTO contacts (project_id, email, subscribed, data, created_at, updated_at)
     SELECT $1, 'contact' || i || '@bench.example', i % 3 <> 0, jsonb_build_object('plan', CASE WHEN i % 2 = 0 THEN 'pro' ELSE 'free' END, 'n', i),
            now() - i * interval '1 second', now()
       FROM generate_series(1, $2::int) AS i`,
    [project.id, count],
  );
  await server.deps.db.query('ANALYZE contacts');
  log(`seeded ${count.toLocaleString()} contacts in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Navigation start → first contact row in the DOM, in a fresh context (cold cache), per run. */
async function tableFirstPaint(browser: Browser, server: TestServer, project: TestProject): Promise<{ paintMs: number; apiMs: number }> {
  const paints: number[] = [];
  const apis: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const page = await pageAs(browser, server.url, project.owner);
    await page.goto(`/p/${project.id}/contacts`, { waitUntil: 'commit' });
    await page.locator('table[aria-label="Contacts"] tbody tr').first().waitFor({ timeout: 600_000 });
    paints.push(await page.evaluate(() => (globalThis as any).performance.now() as number));
    apis.push(
      await page.evaluate(() => {
        const entry = (globalThis as any).performance.getEntriesByType('resource').find((e: any) => /\/contacts\?/.test(e.name));
        return entry ? entry.responseEnd - entry.requestStart : NaN;
      }),
    );
    await page.context().close();
  }
  // The first run also warms the server (statement plans, the count cache); the median ignores it.
  return { paintMs: Math.round(median(paints)), apiMs: Math.round(median(apis)) };
}

await ensureDashboardBuilt();
const server = await startTestServer();
const browser = await launchBrowser();
try {
  const js = await firstPageScripts(browser, server);
  const small = await createProject(server.url);
  await seed(server, small, 10);
  const baseline = await tableFirstPaint(browser, server, small);
  const large = await createProject(server.url);
  await seed(server, large, CONTACTS);
  // The first list of the big project also waits for background work the insert started.
  await large.dashboard.get('/contacts?limit=50');
  const big = await tableFirstPaint(browser, server, large);
  const result = {
    scenario: 'dashboard',
    database: server.env.DATABASE_URL ? 'postgres' : 'embedded',
    firstPageJs: { files: js.files, rawBytes: js.raw, gzipBytes: js.gzip },
    contactsFirstPaint: {
      contacts: CONTACTS,
      runs: RUNS,
      medianMs: big.paintMs,
      listApiMs: big.apiMs,
      baseline10ContactsMs: baseline.paintMs,
      baselineListApiMs: baseline.apiMs,
      ratio: Number((big.paintMs / baseline.paintMs).toFixed(2)),
    },
  };
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
  await server.close();
}
