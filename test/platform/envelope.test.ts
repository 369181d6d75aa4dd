import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, createProject, DEFAULT_PASSWORD } from '../kit/accounts.ts';
import { type ApiResponse, client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/** the API reference (Errors): the envelope, with X-Request-Id equal to error.requestId (docs/architecture.md). */
function assertEnvelope(res: ApiResponse, status: number, code: string) {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.body.success, false);
  assert.equal(res.body.error.code, code);
  assert.equal(res.body.error.statusCode, status);
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(res.body.error.message.length > 0);
  assert.match(res.body.error.requestId, /^req_[0-9a-f]{32}$/);
  assert.equal(res.headers.get('x-request-id'), res.body.error.requestId);
  assert.ok(!Number.isNaN(Date.parse(res.body.timestamp)), 'timestamp is a date-time');
  assert.equal(new Date(res.body.timestamp).toISOString(), res.body.timestamp);
}

function assertSuccess(res: ApiResponse, status: number) {
  assert.equal(res.status, status, res.text);
  assert.ok(!('success' in res.body) || res.body.success === true, 'no success:false on a success');
  assert.ok(!('error' in res.body), 'no error on a success');
  assert.match(res.headers.get('x-request-id') ?? '', /^req_/);
}

describe('the error envelope on every status', () => {
  let server: TestServer;
  let http: ReturnType<typeof client>;
  before(async () => {
    server = await startTestServer();
    http = client(server.url);
  });
  after(() => server.close());

  test('400: a malformed JSON body', async () => {
    const res = await http.post('/auth/signup', undefined, { rawBody: '{"email":', headers: { 'content-type': 'application/json' } });
    assertEnvelope(res, 400, 'INVALID_JSON');
  });

  test('401: a missing key, an unknown key, bad credentials', async () => {
    assertEnvelope(await http.get('/v1/whoami'), 401, 'INVALID_API_KEY');
    assertEnvelope(await http.get('/v1/whoami', { key: 'sk_unknown' }), 401, 'INVALID_API_KEY');
    assertEnvelope(await http.post('/auth/login', { email: 'nobody@example.test', password: DEFAULT_PASSWORD }), 401, 'INVALID_CREDENTIALS');
    assertEnvelope(await http.get('/users/@me'), 401, 'UNAUTHORIZED');
  });

  test('403: a disabled project, a role that may not act', async () => {
    const project = await createProject(server.url);
    await http.patch(`/users/@me/projects/${project.id}`, { disabled: true }, { cookie: project.owner.cookie });
    assertEnvelope(await project.api.get('/v1/whoami'), 403, 'PROJECT_DISABLED');

    const other = await createProject(server.url);
    const member = await createAccount(server.url);
    await http.post(`/projects/${other.id}/members`, { email: member.email, role: 'MEMBER' }, { cookie: other.owner.cookie });
    assertEnvelope(await http.post(`/users/@me/projects/${other.id}/regenerate-keys`, undefined, { cookie: member.cookie }), 403, 'FORBIDDEN');
  });

  test('404: an unknown route, a project one is not a member of', async () => {
    assertEnvelope(await http.get('/v1/nothing-here'), 404, 'ROUTE_NOT_FOUND');
    const project = await createProject(server.url);
    const stranger = await createAccount(server.url);
    assertEnvelope(await http.get(`/projects/${project.id}/members`, { cookie: stranger.cookie }), 404, 'NOT_FOUND');
  });

  test('409: an email already in use', async () => {
    const account = await createAccount(server.url);
    assertEnvelope(await http.post('/auth/signup', { email: account.email, password: DEFAULT_PASSWORD }), 409, 'EMAIL_IN_USE');
  });

  test('422: field errors with dot paths and the docs/architecture.md codes', async () => {
    const missing = await http.post('/auth/signup', { email: 'someone@example.test' });
    assertEnvelope(missing, 422, 'VALIDATION_ERROR');
    assert.equal(missing.body.error.message, 'Request validation failed');
    assert.deepEqual(missing.body.error.errors, [{ field: 'password', message: 'Required', code: 'invalid_type', received: 'undefined' }]);

    const bad = await http.post('/auth/signup', { email: 'not an email', password: 'short' });
    assertEnvelope(bad, 422, 'VALIDATION_ERROR');
    const byField = Object.fromEntries(bad.body.error.errors.map((e: any) => [e.field, e.code]));
    assert.deepEqual(byField, { email: 'invalid_string', password: 'too_small' });

    const project = await createProject(server.url);
    const badPath = await http.patch('/users/@me/projects/123', { name: 'x' }, { cookie: project.owner.cookie });
    assertEnvelope(badPath, 422, 'VALIDATION_ERROR');
    assert.deepEqual(
      badPath.body.error.errors.map((e: any) => [e.field, e.code]),
      [['id', 'invalid_string']],
    );
  });

  test('500: a real fault answers INTERNAL_SERVER_ERROR with a request id and no internals', async () => {
    const project = await createProject(server.url);
    const db = server.deps.db;
    await db.exec('ALTER TABLE project_members RENAME TO pm_x');
    let res: ApiResponse;
    try {
      res = await http.get('/users/@me/projects', { cookie: project.owner.cookie });
    } finally {
      await db.exec('ALTER TABLE pm_x RENAME TO project_members');
    }
    assertEnvelope(res, 500, 'INTERNAL_SERVER_ERROR');
    assert.deepEqual(Object.keys(res.body.error).sort(), ['code', 'message', 'requestId', 'statusCode']);
    assert.doesNotMatch(res.text, /project_members|pm_x|relation|SELECT|stack|\.ts:\d+|at \w+ \(/i);
    assertSuccess(await http.get('/users/@me/projects', { cookie: project.owner.cookie }), 200);
  });

  test('successes carry no error envelope', async () => {
    const project = await createProject(server.url);
    assertSuccess(await project.api.get('/v1/whoami'), 200);
    assertSuccess(await http.get('/users/@me', { cookie: project.owner.cookie }), 200);
    assertSuccess(await http.get('/users/@me/projects', { cookie: project.owner.cookie }), 200);
    assertSuccess(await http.get(`/projects/${project.id}/members`, { cookie: project.owner.cookie }), 200);
    assertSuccess(await http.post('/auth/login', { email: project.owner.email, password: project.owner.password }), 200);
  });
});
