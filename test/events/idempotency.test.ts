import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });

describe('Idempotency-Key on /v1/track (the API reference (Limits), Errors; docs/decisions/idempotency-and-rate-limits.md)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('the same key twice: the second is refused with 409 IDEMPOTENCY_KEY_REUSED and its details', async () => {
    const project = await createProject(server.url);
    const key = `order-${randomUUID()}`;
    const body = { email: uniqueEmail(), event: 'purchase' };
    const first = await project.publicApi.post('/v1/track', body, withKey(key));
    assert.equal(first.status, 200, first.text);
    const second = await project.publicApi.post('/v1/track', body, withKey(key));
    assert.equal(second.status, 409);
    assert.equal(second.body.success, false);
    assert.equal(second.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
    const { details } = second.body.error;
    assert.equal(details.key, key);
    assert.deepEqual(details.originalRequest, { method: 'POST', path: '/v1/track' });
    assert.equal(details.originalStatusCode, 200);
    assert.ok(Math.abs(Date.parse(details.originalRequestAt) - Date.now()) < 60_000);
    assert.equal((await project.api.get('/events?name=purchase')).body.total, 1, 'the refused request was not performed');
    const other = await project.publicApi.post('/v1/track', body, withKey(`${key}-2`));
    assert.equal(other.status, 200, 'another key runs');
  });

  test('20 concurrent requests with one key: exactly one runs', async () => {
    const project = await createProject(server.url);
    const key = randomUUID();
    const email = uniqueEmail();
    const answers = await Promise.all(Array.from({ length: 20 }, () => project.publicApi.post('/v1/track', { email, event: 'race' }, withKey(key))));
    const statuses = answers.map((res) => res.status).sort();
    assert.deepEqual(statuses, [200, ...Array(19).fill(409)]);
    for (const res of answers.filter((r) => r.status === 409)) assert.equal(res.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal((await project.api.get('/events?name=race')).body.total, 1, 'exactly one event stored');
  });

  test('a 4xx releases the key, so a corrected retry with the same key succeeds', async () => {
    const project = await createProject(server.url);
    const key = randomUUID();
    const email = uniqueEmail();
    const reserved = await project.publicApi.post('/v1/track', { email, event: 'email.sent' }, withKey(key));
    assert.equal(reserved.status, 422);
    assert.equal(reserved.body.error.errors[0].code, 'reserved_event');
    // Refused inside the handler, after the key was claimed: the data write rules.
    const badData = await project.publicApi.post('/v1/track', { email, event: 'signup', data: { nested: { a: 1 } } }, withKey(key));
    assert.equal(badData.status, 422);
    assert.equal(badData.body.error.errors[0].field, 'data.nested');
    const corrected = await project.publicApi.post('/v1/track', { email, event: 'signup' }, withKey(key));
    assert.equal(corrected.status, 200, corrected.text);
    assert.equal((await project.publicApi.post('/v1/track', { email, event: 'signup' }, withKey(key))).status, 409);
    assert.equal((await project.api.get('/events?name=signup')).body.total, 1);
  });

  test('an invalid key is a 400; 255 printable characters are fine', async () => {
    const project = await createProject(server.url);
    const body = { email: uniqueEmail(), event: 'signup' };
    for (const key of ['k'.repeat(256), 'tab\there', 'caf\u00e9']) {
      const res = await project.publicApi.post('/v1/track', body, withKey(key));
      assert.equal(res.status, 400, JSON.stringify(key));
      assert.equal(res.body.error.code, 'INVALID_IDEMPOTENCY_KEY');
    }
    assert.equal((await project.api.get('/events')).body.total, 0, 'nothing was performed');
    const longest = await project.publicApi.post('/v1/track', body, withKey(`${'~'.repeat(200)} !${'k'.repeat(53)}`));
    assert.equal(longest.status, 200, longest.text);
  });

  test('keys are per project', async () => {
    const a = await createProject(server.url);
    const b = await createProject(server.url);
    const key = randomUUID();
    assert.equal((await a.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'x' }, withKey(key))).status, 200);
    assert.equal((await b.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'x' }, withKey(key))).status, 200);
    assert.equal((await a.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'x' }, withKey(key))).status, 409);
  });
});
