import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { describe, test } from 'node:test';
import { uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { prepareEnvironment, spawnServer } from '../kit/server.ts';

/** Starts a POST whose body is sent in two halves; returns a function that sends the rest. */
function startSlowPost(url: string, path: string, body: string) {
  const half = Math.floor(body.length / 2);
  const target = new URL(path, url);
  let finish!: () => void;
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(
      target,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
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

  test('ROLE=worker serves only the health endpoints', async () => {
    const { env, cleanup } = await prepareEnvironment({ ROLE: 'worker' });
    const server = await spawnServer(env);
    try {
      const http = client(server.url);
      assert.equal((await http.get('/health')).status, 200);
      assert.equal((await http.get('/ready')).status, 200);
      const signup = await http.post('/auth/signup', { email: uniqueEmail(), password: 'a long enough password' });
      assert.equal(signup.status, 404);
      assert.equal(signup.body.error.code, 'ROUTE_NOT_FOUND');
      assert.equal(await server.stop(), 0);
    } finally {
      await server.stop('SIGKILL');
      await cleanup();
    }
  });
});
