import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { prepareEnvironment, spawnServer } from '../kit/server.ts';

/**
 * kill -9 of the server (the embedded database by default, PostgreSQL in the second pass) while
 * writes are being acknowledged: every write that got its 200 is there after a restart. On the
 * embedded database each commit reaches the operating system before the answer (PGlite writes its
 * WAL through to the data directory; docs/decisions/durability.md).
 */
describe('a server killed under write load keeps every acknowledged write', () => {
  test('SIGKILL during 16 connections of /v1/track: after a restart, every acknowledged contact exists', async () => {
    const { env, cleanup } = await prepareEnvironment({ RATE_LIMIT_PER_MINUTE: '1000000' });
    let server = await spawnServer(env);
    try {
      const project = await createProject(server.url);
      const acknowledged: Array<{ email: string; contact: string }> = [];
      let killed = false;
      const load = async () => {
        while (!killed) {
          const email = uniqueEmail('ack');
          try {
            const res = await project.publicApi.post('/v1/track', { email, event: 'signed-up', data: { plan: 'Team', note: 'Привет, 世界' } });
            if (res.status === 200) acknowledged.push({ email, contact: res.body.data.contact });
          } catch {
            // The connection died with the server: not acknowledged.
          }
        }
      };
      const loops = Array.from({ length: 16 }, load);
      while (acknowledged.length < 300) await new Promise((resolve) => setTimeout(resolve, 20));
      server.child.kill('SIGKILL');
      killed = true;
      await server.exited;
      await Promise.all(loops);

      server = await spawnServer(env);
      const api = client(server.url, { key: project.secretKey });
      const missing: string[] = [];
      for (let i = 0; i < acknowledged.length; i += 16) {
        await Promise.all(
          acknowledged.slice(i, i + 16).map(async ({ email, contact }) => {
            const res = await api.get(`/contacts/${contact}`);
            if (res.status !== 200 || res.body.email !== email) missing.push(email);
          }),
        );
      }
      assert.deepEqual(missing, [], `${missing.length} of ${acknowledged.length} acknowledged writes lost`);
    } finally {
      await server.stop('SIGKILL');
      await cleanup();
    }
  });
});
