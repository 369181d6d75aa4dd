import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { createTestDatabase, prepareEnvironment, type SpawnedServer, spawnServer, TEST_DATABASE_URL } from '../kit/server.ts';

/** Starts a POST whose body is sent in two halves; returns a function that sends the rest. */
function startSlowPost(url: string, path: string, body: string) {
  const half = Math.floor(body.length / 2);
  const target = new URL(path, url);
  let finish!: () => void;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(target, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.write(body.slice(0, half));
    finish = () => req.end(body.slice(half));
  });
  return { response, finish };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('processes', () => {
  test('SIGTERM drains a request already in flight, refuses new work, then exits cleanly', async () => {
    const { env, cleanup } = await prepareEnvironment();
    const server = await spawnServer(env);
    try {
      const email = uniqueEmail('drain');
      const slow = startSlowPost(server.url, '/auth/signup', JSON.stringify({ email, password: 'a long enough password' }));
      await delay(200); // the server now holds the request, waiting for the rest of its body
      server.child.kill('SIGTERM');
      await delay(300);
      await assert.rejects(fetch(`${server.url}/health`), 'a new connection is refused while draining');
      slow.finish();
      const answered = await slow.response;
      assert.equal(answered.status, 201, answered.body);
      assert.equal(JSON.parse(answered.body).email, email);
      assert.equal(await server.exited, 0);
      assert.match(server.output(), /stopped cleanly/);
    } finally {
      await server.stop('SIGKILL');
      await cleanup();
    }
  });
});

// API and worker processes sharing one database need a shared PostgreSQL (the embedded database
// belongs to one process), so this block exists only in the TEST_DATABASE_URL pass.
if (TEST_DATABASE_URL) {
  describe('API and worker processes on one PostgreSQL', () => {
    test('a job queued by ROLE=api waits until a ROLE=worker process runs it; the worker serves only health', async () => {
      const database = await createTestDatabase();
      const shared = { DATABASE_URL: database.url };
      // Processes of one deployment share SESSION_SECRET and SECRETS_KEY (docs/security.md).
      const apiEnv = await prepareEnvironment({ ...shared, ROLE: 'api', SECRETS_KEY: randomBytes(32).toString('hex') });
      const workerEnv = await prepareEnvironment({ ...shared, ROLE: 'worker', SESSION_SECRET: apiEnv.env.SESSION_SECRET!, SECRETS_KEY: apiEnv.env.SECRETS_KEY! });
      const api = await spawnServer(apiEnv.env);
      let worker: SpawnedServer | undefined;
      try {
        const project = await createProject(api.url);
        const contact = await project.api.post('/contacts', { email: uniqueEmail('role'), subscribed: true });
        assert.equal(contact.status, 201, contact.text);
        const queued = await project.api.post('/contacts/bulk-unsubscribe', { contactIds: [contact.body.id] });
        assert.equal(queued.status, 202, queued.text);
        const jobPath = `/contacts/bulk/${queued.body.jobId}`;

        await delay(2500); // longer than the queue's poll: nobody runs jobs in an API-only process
        assert.equal((await project.api.get(jobPath)).body.status, 'queued');

        worker = await spawnServer(workerEnv.env);
        const http = client(worker.url);
        assert.equal((await http.get('/health')).status, 200);
        assert.equal((await http.get('/ready')).status, 200);
        assert.equal((await http.post('/auth/signup', { email: uniqueEmail(), password: 'a long enough password' })).status, 404);

        const deadline = Date.now() + 20_000;
        let status = 'queued';
        while (status !== 'completed' && Date.now() < deadline) {
          await delay(200);
          status = (await project.api.get(jobPath)).body.status;
        }
        assert.equal(status, 'completed');
        assert.equal((await project.api.get(`/contacts/${contact.body.id}`)).body.subscribed, false);
        assert.equal(await worker.stop(), 0);
        assert.equal(await api.stop(), 0);
      } finally {
        await worker?.stop('SIGKILL');
        await api.stop('SIGKILL');
        await apiEnv.cleanup();
        await workerEnv.cleanup();
        await database.drop();
      }
    });
  });
}
