import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { fuzz, HEALTH_LIMIT_MS, healthLimit } from '../kit/fuzz.ts';
import { prepareEnvironment, type SpawnedServer, spawnServer } from '../kit/server.ts';

// `npm test` runs a few seconds per database; `npm run fuzz` sets FUZZ_BUDGET_MS to minutes.
// A failure prints its seed: FUZZ_SEED=<seed> replays the same requests.
const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 4000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 4);

describe('fuzz: malformed requests derived from /openapi.json, for every route', () => {
  let server: SpawnedServer;
  let cleanup: () => Promise<void>;
  let project: TestProject;
  before(async () => {
    // Its own process, as in production: /health measures the server, not this test's own work.
    // The rate limit would answer most of the fuzz with 429s instead of exercising the routes.
    const environment = await prepareEnvironment({ RATE_LIMIT_PER_MINUTE: '10000000' });
    cleanup = environment.cleanup;
    server = await spawnServer(environment.env);
    project = await createProject(server.url);
  });
  after(async () => {
    await server?.stop();
    await cleanup?.();
  });

  test(`no 5xx, every error in the envelope, /health within ${HEALTH_LIMIT_MS} ms throughout (seed ${SEED}, ${BUDGET_MS} ms)`, { timeout: BUDGET_MS + 180_000 }, async () => {
    const { limitMs, idleWorstMs } = await healthLimit(server.url);
    const report = await fuzz({ baseUrl: server.url, project, budgetMs: BUDGET_MS, seed: SEED, healthLimitMs: limitMs, concurrency: CONCURRENCY });
    const summary = `seed ${SEED}: ${report.requests} requests over ${report.operations} operations, statuses ${JSON.stringify(report.byStatus)}, /health checked ${report.healthChecks} times (worst ${Math.round(report.healthWorstMs)} ms, limit ${limitMs} ms, idle worst ${idleWorstMs} ms)`;
    console.log(summary);
    console.log(`slowest answers: ${JSON.stringify(report.slowest)}`);
    assert.ok(report.requests >= report.operations, `every operation visited at least once: ${summary}`);
    assert.ok(report.healthChecks > 0);
    assert.deepEqual(report.failures.slice(0, 10), [], summary);
    assert.equal(report.failures.length, 0);
    // The server still serves a normal request afterwards.
    assert.equal((await project.api.get('/templates')).status, 200);
  });
});
