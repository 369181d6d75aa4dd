import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { createTestDatabase, prepareEnvironment, spawnServer, startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

const rateHeaders = (headers: Headers) => ({
  limit: headers.get('ratelimit-limit'),
  remaining: headers.get('ratelimit-remaining'),
  reset: headers.get('ratelimit-reset'),
});

function assertResetSeconds(value: string | null) {
  assert.match(value ?? '', /^\d+$/);
  const seconds = Number(value);
  assert.ok(seconds >= 0 && seconds <= 60, `reset ${seconds} is within the 60 s window`);
}

describe('rate limit per project (the API reference (Limits), docs/decisions/idempotency-and-rate-limits.md)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ RATE_LIMIT_PER_MINUTE: '5' });
  });
  after(() => server.close());

  test('the limit allows 5 requests with headers counting down, then answers 429 with Retry-After', async () => {
    const project = await createProject(server.url);
    for (let i = 1; i <= 5; i++) {
      const res = await project.api.get('/v1/whoami');
      assert.equal(res.status, 200);
      const headers = rateHeaders(res.headers);
      assert.equal(headers.limit, '5');
      assert.equal(headers.remaining, String(5 - i));
      assertResetSeconds(headers.reset);
    }
    const refused = await project.api.get('/v1/whoami');
    assert.equal(refused.status, 429);
    assert.equal(refused.body.success, false);
    assert.equal(refused.body.error.code, 'RATE_LIMIT_EXCEEDED');
    assert.equal(refused.body.error.statusCode, 429);
    assert.match(refused.body.error.requestId, /^req_/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(refused.headers.get('ratelimit-limit'), '5');
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assertResetSeconds(refused.headers.get('ratelimit-reset'));
  });

  test('another project keeps its own allowance', async () => {
    const busy = await createProject(server.url);
    const quiet = await createProject(server.url);
    for (let i = 0; i < 6; i++) await busy.api.get('/v1/whoami');
    assert.equal((await busy.api.get('/v1/whoami')).status, 429);
    const res = await quiet.api.get('/v1/whoami');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-remaining'), '4');
  });

  test('requests refused with 401 count against no one', async () => {
    const project = await createProject(server.url);
    const anonymous = client(server.url);
    for (let i = 0; i < 6; i++) {
      // An unknown key, and this project's public key where the secret key is required.
      assert.equal((await anonymous.get('/v1/whoami', { key: `sk_${'0'.repeat(40)}` })).status, 401);
      const wrongKey = await project.publicApi.get('/v1/whoami');
      assert.equal(wrongKey.status, 401);
      assert.equal(wrongKey.headers.get('ratelimit-remaining'), null);
    }
    const res = await project.api.get('/v1/whoami');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit-remaining'), '4');
  });

  test('dashboard session requests are not limited and carry no rate-limit headers', async () => {
    const project = await createProject(server.url);
    for (let i = 0; i < 7; i++) {
      const res = await project.dashboard.get('/v1/whoami');
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-limit'), null);
    }
    assert.equal((await project.api.get('/v1/whoami')).headers.get('ratelimit-remaining'), '4');
  });

  test('concurrent requests cannot overrun the limit', async () => {
    const project = await createProject(server.url);
    const responses = await Promise.all(Array.from({ length: 20 }, () => project.api.get('/v1/whoami')));
    assert.equal(responses.filter((r) => r.status === 200).length, 5);
    assert.equal(responses.filter((r) => r.status === 429).length, 15);
    const remaining = responses.filter((r) => r.status === 200).map((r) => r.headers.get('ratelimit-remaining'));
    assert.deepEqual(remaining.sort(), ['0', '1', '2', '3', '4']);
  });
});

// Two processes counting against one limit needs a shared PostgreSQL server, so this block exists
// only in the TEST_DATABASE_URL pass.
if (TEST_DATABASE_URL) {
  describe('rate limit across processes on one PostgreSQL', () => {
    test('two API processes share one per-project count', async () => {
      const database = await createTestDatabase();
      const { env, cleanup } = await prepareEnvironment({ DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '30' });
      // One after the other, as a deployment starts them (each runs the migrations at start-up).
      const first = await spawnServer(env);
      const second = await spawnServer(env);
      try {
        const project = await createProject(first.url);
        const apis = [client(first.url, { key: project.secretKey }), client(second.url, { key: project.secretKey })];
        const statuses: number[] = [];
        for (let i = 0; i < 60; i++) statuses.push((await apis[i % 2]!.get('/v1/whoami')).status);
        assert.equal(statuses.filter((s) => s === 200).length, 30);
        assert.equal(statuses.filter((s) => s === 429).length, 30);
        // One count, not one per process: the first 30 (alternating) pass and every later one fails.
        assert.deepEqual(statuses.slice(0, 30), Array(30).fill(200));
      } finally {
        await Promise.all([first.stop(), second.stop()]);
        await cleanup();
        await database.drop();
      }
    });
  });
}
