import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('operations endpoints', () => {
  let server: TestServer;
  let http: ReturnType<typeof client>;
  before(async () => {
    server = await startTestServer({ SIGNUP_ENABLED: 'false' });
    http = client(server.url);
  });
  after(() => server.close());

  test('GET /health answers while the process is up', async () => {
    const res = await http.get('/health');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ok' });
  });

  test('GET /ready checks the database and migrations', async () => {
    const res = await http.get('/ready');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { status: 'ready', database: true, migrations: true });
  });

  test('GET /config gives feature flags without authentication', async () => {
    const res = await http.get('/config');
    assert.equal(res.status, 200);
    assert.equal(res.body.signupEnabled, false);
    assert.equal(res.body.delivery, 'outbox');
    assert.equal(res.body.database, process.env.TEST_DATABASE_URL ? 'postgres' : 'embedded');
  });

  test('an unknown route is a 404 in the error envelope, with the request id', async () => {
    const res = await http.get('/no/such/route');
    assert.equal(res.status, 404);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'ROUTE_NOT_FOUND');
    assert.equal(res.body.error.statusCode, 404);
    assert.match(res.body.error.requestId, /^req_/);
    assert.equal(res.headers.get('x-request-id'), res.body.error.requestId);
    assert.ok(!Number.isNaN(Date.parse(res.body.timestamp)));
  });

  test('/openapi.json is generated from the route schemas and /docs serves a reference page', async () => {
    const spec = await http.get('/openapi.json');
    assert.equal(spec.status, 200);
    assert.equal(spec.body.openapi, '3.0.3');
    assert.ok(spec.body.paths['/config'], 'GET /config is documented');
    // The input limits are said where clients read the API, with the values the server enforces.
    assert.match(spec.body.info.description, /nested deeper than 32 levels/);
    assert.match(spec.body.info.description, /at most 100 filters and 5 levels, filter values of at most 1000 characters/);
    const docs = await fetch(`${server.url}/docs/`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger/i);
  });
});
