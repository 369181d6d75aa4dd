import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { PER_ENDPOINT } from '../../src/webhooks/delivery.ts';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { type Receiver, type Reply, startReceiver } from '../kit/receiver.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/** Three retries 0.4 s apart (±10 %): four attempts, then `failed`. */
const SCHEDULE = [0.4, 0.4, 0.4];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A reply per path, changeable while the test runs. */
const replies = new Map<string, (attempt: number) => Reply>();

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function messages(project: TestProject, endpointId: string, query = '') {
  const res = await project.api.get(`/webhook-endpoints/${endpointId}/messages${query}`);
  assert.equal(res.status, 200, res.text);
  return res.body as { data: any[]; cursor: string | null; hasMore: boolean; total: number };
}

describe('webhook delivery (docs/decisions/webhook-endpoints.md): retries, 410, the log, replays, rotation', () => {
  let server: TestServer;
  let receiver: Receiver;
  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: SCHEDULE.join(',') });
    receiver = await startReceiver((request) => {
      const attempt = receiver.received.filter((r) => r.path === request.path).length;
      return replies.get(request.path)?.(attempt) ?? { status: 200 };
    });
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  async function endpoint(project: TestProject, path: string, events = ['*']) {
    const res = await project.api.post('/webhook-endpoints', { url: receiver.url(path), events });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: string; secret: string };
  }

  test('a failing endpoint is retried on the schedule with the same webhook-id until it answers 2xx; the log keeps every attempt', async () => {
    const project = await createProject(server.url);
    // 500 with a 3 KB body twice, then 204: only the first 1 KB of each answer is kept.
    const longBody = 'Erreur interne — 内部エラー — '.repeat(120);
    replies.set('/retry', (attempt) => (attempt <= 2 ? { status: 500, body: longBody } : { status: 204 }));
    const { id } = await endpoint(project, '/retry');
    await project.publicApi.post('/v1/track', { email: uniqueEmail('retry'), event: 'invoice.paid', data: { invoice: 'INV-2026-0042', amount: 129 } });
    await receiver.waitFor(3, '/retry');

    const tries = receiver.received.filter((r) => r.path === '/retry');
    assert.equal(new Set(tries.map((r) => r.headers['webhook-id'])).size, 1, 'the same webhook-id on every try');
    assert.equal(new Set(tries.map((r) => r.body)).size, 1, 'the same body on every try');
    for (let i = 1; i < tries.length; i++) {
      const gap = tries[i]!.at - tries[i - 1]!.at;
      assert.ok(gap >= SCHEDULE[i - 1]! * 900 * 0.9, `retry ${i} waited ${gap} ms`);
    }

    const log = await until('the success to be logged', async () => {
      const page = await messages(project, id);
      return page.data[0]?.status === 'succeeded' ? page : undefined;
    });
    assert.equal(log.total, 1);
    const [message] = log.data;
    assert.equal(message.id, tries[0]!.headers['webhook-id']);
    assert.equal(message.type, 'invoice.paid');
    assert.equal(message.nextAttemptAt, null);
    assert.deepEqual(
      message.attempts.map((a: any) => a.statusCode),
      [500, 500, 204],
    );
    // The first 1 KB of the body (a character cut at the 1,024th byte decodes as U+FFFD).
    const kept = message.attempts[0].response.replace(/\uFFFD$/, '');
    assert.ok(longBody.startsWith(kept));
    assert.ok(Buffer.byteLength(kept) > 1000 && Buffer.byteLength(kept) <= 1024, `kept ${Buffer.byteLength(kept)} bytes`);
    assert.equal(message.attempts[2].response, '');
    for (const attempt of message.attempts) assert.ok(Number.isInteger(attempt.durationMs) && attempt.durationMs >= 0 && !Number.isNaN(Date.parse(attempt.at)));
  });

  test('a spent schedule makes the message failed; the window replay and the one-message replay send it again with the same id', async () => {
    const project = await createProject(server.url);
    let down = true;
    replies.set('/down', () => (down ? { status: 503, body: 'maintenance' } : { status: 200, body: 'ok' }));
    const { id } = await endpoint(project, '/down');
    const since = new Date(Date.now() - 1000).toISOString();
    await project.publicApi.post('/v1/track', { email: uniqueEmail('down'), event: 'subscription.renewed', data: { plan: 'Équipe', seats: 12 } });

    const failed = await until('the message to fail', async () => {
      const page = await messages(project, id, '?status=failed');
      return page.data.length ? page.data[0] : undefined;
    });
    assert.equal(failed.attempts.length, SCHEDULE.length + 1);
    assert.ok(failed.attempts.every((a: any) => a.statusCode === 503 && a.response === 'maintenance'));
    assert.equal(failed.nextAttemptAt, null);
    assert.equal((await messages(project, id, '?status=pending')).total, 0);
    assert.equal((await project.api.get(`/webhook-endpoints/${id}/messages?status=lost`)).status, 400);

    down = false;
    // An empty window replays nothing; the window holding the message replays it.
    const empty = await project.api.post(`/webhook-endpoints/${id}/replay`, { since: new Date(Date.now() - 3600_000).toISOString(), until: since });
    assert.deepEqual([empty.status, empty.body], [202, { count: 0 }]);
    const replayed = await project.api.post(`/webhook-endpoints/${id}/replay`, { since });
    assert.deepEqual([replayed.status, replayed.body], [202, { count: 1 }]);
    await receiver.waitFor(SCHEDULE.length + 2, '/down');
    const succeeded = await until('the replay to succeed', async () => {
      const page = await messages(project, id, '?status=succeeded');
      return page.data[0];
    });
    assert.equal(succeeded.id, failed.id);
    assert.deepEqual(
      succeeded.attempts.map((a: any) => a.statusCode),
      [503, 503, 503, 503, 200],
    );

    // One message, whatever its status: a new attempt now.
    const one = await project.api.post(`/webhook-endpoints/${id}/messages/${failed.id}/replay`);
    assert.equal(one.status, 202, one.text);
    await receiver.waitFor(SCHEDULE.length + 3, '/down');
    const ids = receiver.received.filter((r) => r.path === '/down').map((r) => r.headers['webhook-id']);
    assert.deepEqual(new Set(ids), new Set([failed.id]));
    const missing = await project.api.post(`/webhook-endpoints/${id}/messages/${crypto.randomUUID()}/replay`);
    assert.equal(missing.status, 404);
  });

  test('410 disables the endpoint: no attempts while disabled, its messages wait and go out once enabled; the owners are mailed', async () => {
    const project = await createProject(server.url);
    let gone = true;
    replies.set('/gone', () => (gone ? { status: 410, body: 'endpoint removed' } : { status: 200 }));
    const { id } = await endpoint(project, '/gone');
    const email = uniqueEmail('gone');
    await project.publicApi.post('/v1/track', { email, event: 'cart.abandoned', data: { items: 3 } });
    await receiver.waitFor(1, '/gone');
    const disabled = await until('the endpoint to be disabled', async () => {
      const res = await project.api.get(`/webhook-endpoints/${id}`);
      return res.body.enabled === false ? res.body : undefined;
    });
    assert.equal(disabled.enabled, false);

    await project.publicApi.post('/v1/track', { email, event: 'cart.recovered', data: { items: 3 } });
    await until('the second message to be queued', async () => ((await messages(project, id)).total === 2 ? true : undefined));
    await sleep(2 * SCHEDULE[0]! * 1000 + 1000);
    assert.equal(receiver.received.filter((r) => r.path === '/gone').length, 1, 'a disabled endpoint gets no attempt');
    const waiting = await messages(project, id, '?status=pending');
    assert.equal(waiting.total, 2);

    gone = false;
    const enabled = await project.api.patch(`/webhook-endpoints/${id}`, { enabled: true });
    assert.equal(enabled.body.enabled, true);
    await receiver.waitFor(3, '/gone');
    const types = receiver.received
      .filter((r) => r.path === '/gone')
      .slice(1)
      .map((r) => JSON.parse(r.body).type)
      .sort();
    assert.deepEqual(types, ['cart.abandoned', 'cart.recovered']);

    const mail = await until('the owner mail', async () => {
      const outbox = join(server.dataDir, 'outbox');
      const files = (() => {
        try {
          return readdirSync(outbox);
        } catch {
          return [];
        }
      })();
      const texts = files.map((file) => readFileSync(join(outbox, file), 'utf8')).filter((text) => text.includes('Webhook endpoint disabled'));
      return texts.length ? texts[0] : undefined;
    });
    assert.match(mail, new RegExp(`To: ${project.owner.email}`, 'i'));
    assert.match(mail, /410 Gone/);
  });

  test('an endpoint whose every delivery failed for 5 days is disabled', async () => {
    const project = await createProject(server.url);
    replies.set('/dead', () => ({ status: 502 }));
    const { id } = await endpoint(project, '/dead');
    await project.publicApi.post('/v1/track', { email: uniqueEmail('dead'), event: 'ping', data: { n: 1 } });
    await receiver.waitFor(1, '/dead');
    // The streak began with that failure; move it 5 days back, as if every delivery since had failed.
    await until('the streak to start', async () => {
      const rows = await server.deps.db.query<{ since: Date | null }>('SELECT failing_since AS since FROM webhook_endpoints WHERE project_id = $1 AND id = $2', [project.id, id]);
      return rows[0]?.since ? true : undefined;
    });
    await server.deps.db.query("UPDATE webhook_endpoints SET failing_since = now() - interval '5 days 1 minute' WHERE project_id = $1 AND id = $2", [project.id, id]);
    await receiver.waitFor(2, '/dead');
    await until('the endpoint to be disabled', async () => ((await project.api.get(`/webhook-endpoints/${id}`)).body.enabled === false ? true : undefined));
  });

  test('after rotate-secret, deliveries carry two signatures, each verified with its secret; after the overlap only the new one', async () => {
    const project = await createProject(server.url);
    const { id, secret: oldSecret } = await endpoint(project, '/rotate');
    const rotated = await project.api.post(`/webhook-endpoints/${id}/rotate-secret`);
    assert.equal(rotated.status, 200, rotated.text);
    const newSecret = rotated.body.secret as string;
    assert.notEqual(newSecret, oldSecret);
    await project.publicApi.post('/v1/track', { email: uniqueEmail('rotate'), event: 'profile.updated', data: { locale: 'ja-JP', name: '山田 太郎' } });
    await receiver.waitFor(1, '/rotate');
    const first = receiver.received.filter((r) => r.path === '/rotate')[0]!;
    const signatures = String(first.headers['webhook-signature']).split(' ');
    assert.equal(signatures.length, 2);
    assert.ok(signatures.every((s) => s.startsWith('v1,')));
    const headers = first.headers as Record<string, string>;
    for (const secret of [oldSecret, newSecret]) assert.equal((new Webhook(secret).verify(first.body, headers) as any).type, 'profile.updated');
    // Each signature alone verifies with exactly one of the secrets.
    const alone = (signature: string) => ({ ...headers, 'webhook-signature': signature });
    assert.doesNotThrow(() => new Webhook(newSecret).verify(first.body, alone(signatures[0]!)));
    assert.doesNotThrow(() => new Webhook(oldSecret).verify(first.body, alone(signatures[1]!)));
    assert.throws(() => new Webhook(oldSecret).verify(first.body, alone(signatures[0]!)));

    // 24 hours later (moved back in the database): only the new secret signs.
    await server.deps.db.query("UPDATE webhook_endpoints SET previous_secret_until = now() - interval '1 second' WHERE project_id = $1 AND id = $2", [project.id, id]);
    await project.publicApi.post('/v1/track', { email: uniqueEmail('rotate'), event: 'profile.updated', data: { locale: 'fr-FR' } });
    await receiver.waitFor(2, '/rotate');
    const second = receiver.received.filter((r) => r.path === '/rotate')[1]!;
    assert.equal(String(second.headers['webhook-signature']).split(' ').length, 1);
    assert.doesNotThrow(() => new Webhook(newSecret).verify(second.body, second.headers as Record<string, string>));
    assert.throws(() => new Webhook(oldSecret).verify(second.body, second.headers as Record<string, string>));
  });

  test("a slow endpoint holds only its own slots: another endpoint's and another project's deliveries are not held back", async () => {
    const slowProject = await createProject(server.url);
    const otherProject = await createProject(server.url);
    replies.set('/slow', () => ({ status: 200, delayMs: 6000 }));
    await endpoint(slowProject, '/slow', ['order.*']);
    await endpoint(slowProject, '/beside', ['order.*']);
    await endpoint(otherProject, '/elsewhere', ['order.*']);
    // More slow deliveries than one endpoint may hold at once, queued first.
    for (let i = 0; i < 12; i++) await slowProject.publicApi.post('/v1/track', { email: uniqueEmail('slow'), event: 'order.placed', data: { n: i } });
    await receiver.waitFor(PER_ENDPOINT, '/slow');
    const started = Date.now();
    await otherProject.publicApi.post('/v1/track', { email: uniqueEmail('other'), event: 'order.placed', data: { n: 0 } });
    await receiver.waitFor(1, '/elsewhere', 5000);
    await receiver.waitFor(12, '/beside', 5000);
    assert.ok(Date.now() - started < 5000);
    assert.equal(receiver.received.filter((r) => r.path === '/slow').length, PER_ENDPOINT, 'the slow endpoint has at most PER_ENDPOINT deliveries at once');
  });

  test('the log paginates with a cursor, newest first', async () => {
    const project = await createProject(server.url);
    const { id } = await endpoint(project, '/pages', ['page.*']);
    for (let i = 0; i < 5; i++) await project.publicApi.post('/v1/track', { email: uniqueEmail(`p${i}`), event: `page.viewed`, data: { n: i } });
    await receiver.waitFor(5, '/pages');
    const first = await messages(project, id, '?limit=2');
    assert.deepEqual([first.total, first.data.length, first.hasMore], [5, 2, true]);
    const second = await messages(project, id, `?limit=2&cursor=${encodeURIComponent(first.cursor!)}`);
    const third = await messages(project, id, `?limit=2&cursor=${encodeURIComponent(second.cursor!)}`);
    assert.deepEqual([third.data.length, third.hasMore, third.cursor], [1, false, null]);
    const all = [...first.data, ...second.data, ...third.data];
    assert.equal(new Set(all.map((m) => m.id)).size, 5);
    const created = all.map((m) => Date.parse(m.createdAt));
    assert.deepEqual(
      created,
      [...created].sort((a, b) => b - a),
    );
    assert.equal((await project.api.get(`/webhook-endpoints/${id}/messages?cursor=garbage`)).status, 400);
  });
});
