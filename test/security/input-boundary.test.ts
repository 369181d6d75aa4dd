import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import type { ApiResponse } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const segment = (filter: Record<string, unknown>) => ({ name: 'Plan filter', condition: { logic: 'AND', groups: [{ filters: [filter] }] } });

function assertEnvelope(response: ApiResponse, status: number, code: string) {
  assert.equal(response.status, status, response.text.slice(0, 500));
  assert.equal(response.body?.success, false, response.text.slice(0, 500));
  assert.equal(response.body.error.code, code);
  assert.equal(response.body.error.statusCode, status);
}

function assertField(response: ApiResponse, field: string, message: RegExp) {
  assertEnvelope(response, 422, 'VALIDATION_ERROR');
  const error = response.body.error.errors.find((e: { field: string }) => e.field === field);
  assert.ok(error, `no error on ${field}: ${response.text.slice(0, 500)}`);
  assert.match(error.message, message);
}

describe('the input boundary (NUL, unpaired surrogates, deep JSON, long values, broken multipart)', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url);
  });
  after(() => server.close());

  test('a NUL in a filter value is a 422 naming the field, and the server keeps answering', async () => {
    const response = await project.api.post('/segments', segment({ field: 'data.plan', operator: 'equals', value: '\u0000' }));
    assertField(response, 'condition.groups.0.filters.0.value', /NUL/);
    const health = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(5000) });
    assert.equal(health.status, 200);
  });

  test('NUL in bodies, queries and paths of stored or searched strings: 422 with the field, never a 500', async () => {
    const email = 'reader@example.com';
    assertField(await project.publicApi.post('/v1/track', { email, event: 'signed\u0000up' }), 'event', /NUL/);
    assertField(await project.publicApi.post('/v1/track', { email, event: 'signup', data: { 'pl\u0000an': 'pro' } }), 'data.pl\\u0000an', /key/);
    assertField(
      await project.api.post('/templates', { name: 'Bienvenue\u0000', subject: 'Welcome', body: '<p>Hello</p>', from: 'news@example.com', type: 'TRANSACTIONAL' }),
      'name',
      /NUL/,
    );
    assertField(
      await project.api.post('/v1/send', { to: email, from: 'a@example.com', subject: 'Hi', body: '<p>x</p>', headers: { 'X-Tag': 'a\u0000b' } }),
      'headers.X-Tag',
      /NUL/,
    );
    assertField(await project.api.get('/templates?search=%00'), 'search', /NUL/);
    assertField(await project.api.get('/events/%00/usage'), 'eventName', /NUL/);
    assertField(await project.api.get('/activity?type=%00'), 'type', /NUL/);
  });

  test('an unpaired UTF-16 surrogate (valid JSON, not storable in jsonb) is a 422', async () => {
    const raw = '{"email":"reader@example.com","event":"signup","data":{"city":"K\\ud800ln"}}';
    const response = await project.publicApi.post('/v1/track', undefined, { rawBody: raw, headers: { 'content-type': 'application/json' } });
    assertField(response, 'data.city', /surrogate/);
    // A proper pair (an emoji, a CJK extension character) is fine.
    const ok = await project.publicApi.post('/v1/track', { email: 'reader@example.com', event: 'signup', data: { city: 'Köln 🎉 𠀋' } });
    assert.equal(ok.status, 200, ok.text);
  });

  test('JSON nested 10,000 deep is a 400 in the envelope, arrays or objects', async () => {
    for (const raw of ['['.repeat(10_000) + ']'.repeat(10_000), `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`]) {
      const response = await project.api.post('/templates', undefined, { rawBody: raw, headers: { 'content-type': 'application/json' } });
      assertEnvelope(response, 400, 'BAD_REQUEST');
      assert.match(response.body.error.message, /nested more than 32 levels/);
    }
  });

  test('a 100,000-item array of wrong items is answered with a short 422 (the first issues, the rest counted)', async () => {
    const response = await project.api.post('/contacts/lookup', { emails: Array.from({ length: 100_000 }, (_, i) => i) });
    assert.equal(response.status, 422);
    assert.ok(response.text.length < 10_000, `${response.text.length} bytes`);
    assert.ok(response.body.error.errors.length <= 20);
  });

  test('a 100,000-character filter value and a numeric unit are refused before anything is stored', async () => {
    const before = await project.api.get('/segments');
    const long = await project.api.post('/segments', segment({ field: 'data.notes', operator: 'notContains', value: 'x'.repeat(100_000) }));
    assert.equal(long.status, 400);
    assert.match(long.body.error, /at most 1000 characters/);
    const unit = await project.api.post('/segments', segment({ field: 'email', operator: 'contains', value: 'a', unit: 5 }));
    assert.equal(unit.status, 400);
    assert.match(unit.body.error, /unit/);
    const listed = await project.api.get('/segments');
    assert.equal(listed.status, 200);
    assert.equal(listed.body.length, before.body.length);
  });

  test('GET /segments answers 200 for a condition stored before the unit check (a numeric unit is dropped)', async () => {
    const own = await createProject(server.url);
    const condition = { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'a', unit: 5, extra: 'x' }] }] };
    await server.deps.db.query(`INSERT INTO segments (project_id, id, name, type, condition) VALUES ($1, $2, 'Legacy', 'DYNAMIC', $3)`, [
      own.id,
      randomUUID(),
      JSON.stringify(condition),
    ]);
    const listed = await own.api.get('/segments');
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(listed.body[0].condition, { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'a' }] }] });
  });

  test('a multipart body without its closing boundary is a 400 (image upload, contact import)', async () => {
    const cut = (filename: string, type: string, content: string) =>
      `--XYZ\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n${content}`;
    for (const [path, body] of [
      ['/uploads/image', cut('logo.png', 'image/png', 'abc')],
      ['/contacts/import', cut('list.csv', 'text/csv', 'email,name\nanna@example.com,Anna\n')],
    ] as const) {
      const response = await project.api.post(path, undefined, { rawBody: body, headers: { 'content-type': 'multipart/form-data; boundary=XYZ' } });
      assertEnvelope(response, 400, 'BAD_REQUEST');
      assert.match(response.body.error.message, /multipart/);
    }
  });

  test('query and path values are bounded (2,000 characters)', async () => {
    assertField(await project.api.get(`/templates?search=${'a'.repeat(5000)}`), 'search', /at most 2000/);
  });
});
