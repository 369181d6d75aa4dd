import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, createProject } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { createTestDatabase, prepareEnvironment, type SpawnedServer, spawnServer, startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

describe('API key and session authentication (GET /v1/whoami)', () => {
  let server: TestServer;
  let http: ReturnType<typeof client>;
  before(async () => {
    server = await startTestServer();
    http = client(server.url);
  });
  after(() => server.close());

  const expectInvalidKey = (res: { status: number; body: any }) => {
    assert.equal(res.status, 401);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'INVALID_API_KEY');
  };

  test('the secret key works and names the project', async () => {
    const project = await createProject(server.url, { name: 'Whoami Inc' });
    const res = await project.api.get('/v1/whoami');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true, data: { projectId: project.id, projectName: 'Whoami Inc', keyType: 'secret' } });
  });

  test('the public key is refused with 401 INVALID_API_KEY (the API reference (Authentication)–6)', async () => {
    const project = await createProject(server.url);
    expectInvalidKey(await project.publicApi.get('/v1/whoami'));
  });

  test('a missing header, a wrong prefix, an unknown sk_ key and a malformed header are 401 INVALID_API_KEY', async () => {
    const project = await createProject(server.url);
    expectInvalidKey(await http.get('/v1/whoami'));
    expectInvalidKey(await http.get('/v1/whoami', { key: `xx_${project.secretKey.slice(3)}` }));
    expectInvalidKey(await http.get('/v1/whoami', { key: `sk_${'A'.repeat(32)}` }));
    expectInvalidKey(await http.get('/v1/whoami', { key: `${project.secretKey.slice(0, -1)}x` }));
    expectInvalidKey(await http.get('/v1/whoami', { headers: { authorization: project.secretKey } }));
    expectInvalidKey(await http.get('/v1/whoami', { headers: { authorization: `Basic ${project.secretKey}` } }));
  });

  test('a rotated key fails at once and the new one works', async () => {
    const project = await createProject(server.url);
    assert.equal((await project.api.get('/v1/whoami')).status, 200, 'warms the key cache');
    const rotated = await http.post(`/users/@me/projects/${project.id}/regenerate-keys`, undefined, { cookie: project.owner.cookie });
    assert.equal(rotated.status, 200);
    expectInvalidKey(await project.api.get('/v1/whoami'));
    const fresh = await http.get('/v1/whoami', { key: rotated.body.secretKey });
    assert.equal(fresh.status, 200);
    assert.equal(fresh.body.data.projectId, project.id);
    expectInvalidKey(await http.get('/v1/whoami', { key: rotated.body.publicKey }));
  });

  test('a disabled project answers 403 PROJECT_DISABLED to its key and to members; re-enabling restores both', async () => {
    const project = await createProject(server.url);
    assert.equal((await project.api.get('/v1/whoami')).status, 200);
    await http.patch(`/users/@me/projects/${project.id}`, { disabled: true }, { cookie: project.owner.cookie });
    for (const res of [await project.api.get('/v1/whoami'), await project.dashboard.get('/v1/whoami')]) {
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, 'PROJECT_DISABLED');
    }
    await http.patch(`/users/@me/projects/${project.id}`, { disabled: false }, { cookie: project.owner.cookie });
    assert.equal((await project.api.get('/v1/whoami')).status, 200);
    assert.equal((await project.dashboard.get('/v1/whoami')).status, 200);
  });

  test('a session cookie with X-Project-Id works for a member of any role, and is 403 for a non-member', async () => {
    const project = await createProject(server.url);
    const owner = await project.dashboard.get('/v1/whoami');
    assert.equal(owner.status, 200);
    assert.deepEqual(owner.body.data, { projectId: project.id, projectName: project.name, keyType: 'session' });

    const member = await createAccount(server.url);
    await http.post(`/projects/${project.id}/members`, { email: member.email, role: 'MEMBER' }, { cookie: project.owner.cookie });
    assert.equal((await http.get('/v1/whoami', { cookie: member.cookie, projectId: project.id })).status, 200);

    const stranger = await createAccount(server.url);
    const refused = await http.get('/v1/whoami', { cookie: stranger.cookie, projectId: project.id });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'FORBIDDEN');
  });

  test('a session without X-Project-Id is a 400; a forged session is a 401', async () => {
    const project = await createProject(server.url);
    const noProject = await http.get('/v1/whoami', { cookie: project.owner.cookie });
    assert.equal(noProject.status, 400);
    assert.equal(noProject.body.error.code, 'BAD_REQUEST');
    const forged = await http.get('/v1/whoami', { cookie: `${project.owner.cookie}x`, projectId: project.id });
    assert.equal(forged.status, 401);
  });

  test('a key of one project cannot act on another: X-Project-Id is ignored with a key', async () => {
    const a = await createProject(server.url);
    const b = await createProject(server.url);
    const res = await a.api.get('/v1/whoami', { projectId: b.id });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.projectId, a.id);
  });
});

// Needs a shared PostgreSQL: two OS processes on one database, as in a scaled-out deployment.
if (TEST_DATABASE_URL) {
  describe('key changes reach every process at once (two processes, one PostgreSQL)', () => {
    let database: Awaited<ReturnType<typeof createTestDatabase>>;
    let cleanup: () => Promise<void>;
    let one: SpawnedServer;
    let two: SpawnedServer;
    before(async () => {
      database = await createTestDatabase();
      const prepared = await prepareEnvironment({ DATABASE_URL: database.url });
      cleanup = prepared.cleanup;
      // One after the other, as a deployment starts them (each runs the migrations at start-up).
      one = await spawnServer(prepared.env);
      two = await spawnServer(prepared.env);
    });
    after(async () => {
      await Promise.all([one?.stop(), two?.stop()]);
      await cleanup?.();
      await database?.drop();
    });

    test('a key rotated through one process is refused by the other immediately; the new key works on both', async () => {
      const project = await createProject(one.url);
      const viaTwo = client(two.url);
      assert.equal((await project.api.get('/v1/whoami')).status, 200, 'warms process one');
      assert.equal((await viaTwo.get('/v1/whoami', { key: project.secretKey })).status, 200, 'warms process two');

      const rotated = await client(one.url).post(`/users/@me/projects/${project.id}/regenerate-keys`, undefined, { cookie: project.owner.cookie });
      assert.equal(rotated.status, 200);
      const stale = await viaTwo.get('/v1/whoami', { key: project.secretKey });
      assert.equal(stale.status, 401);
      assert.equal(stale.body.error.code, 'INVALID_API_KEY');
      assert.equal((await project.api.get('/v1/whoami')).status, 401);
      assert.equal((await viaTwo.get('/v1/whoami', { key: rotated.body.secretKey })).status, 200);
      assert.equal((await client(one.url).get('/v1/whoami', { key: rotated.body.secretKey })).status, 200);
    });

    test('disabling through one process is enforced by the other immediately', async () => {
      const project = await createProject(one.url);
      const viaTwo = client(two.url, { key: project.secretKey });
      assert.equal((await viaTwo.get('/v1/whoami')).status, 200, 'warms process two');
      const off = await client(one.url).patch(`/users/@me/projects/${project.id}`, { disabled: true }, { cookie: project.owner.cookie });
      assert.equal(off.status, 200);
      const refused = await viaTwo.get('/v1/whoami');
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error.code, 'PROJECT_DISABLED');
      await client(one.url).patch(`/users/@me/projects/${project.id}`, { disabled: false }, { cookie: project.owner.cookie });
      assert.equal((await viaTwo.get('/v1/whoami')).status, 200);
    });
  });
}
