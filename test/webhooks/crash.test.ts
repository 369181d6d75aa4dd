import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LEASE_SECONDS, PER_ENDPOINT } from '../../src/webhooks/delivery.ts';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { type Received, type Receiver, startReceiver } from '../kit/receiver.ts';
import { prepareEnvironment, type SpawnedServer, spawnServer } from '../kit/server.ts';

const ENDPOINTS = 5;
const EVENTS = 24;
/** Each answer takes this long, so a kill finds deliveries in flight. */
const ANSWER_DELAY_MS = 1500;
/**
 * Answers this close together may reach the worker in either order (its event loop may be busy
 * when both arrive), so they may be recorded in either order.
 */
const ORDER_SLACK_MS = 500;
/** A restarted worker sends its predecessor's deliveries again within this, well inside their lease. */
const TAKEOVER_MS = 5000;

/** The warnings and errors a server logged (pino levels 40 and up). */
const problemsOf = (server: SpawnedServer) =>
  server
    .output()
    .split('\n')
    .filter((line) => /"level":(4|5|6)0/.test(line))
    .join('\n');

/**
 * The messages that may have been unrecorded at the kill. A worker holds at most PER_ENDPOINT
 * deliveries per endpoint, each until its outcome is recorded, and records outcomes in the order
 * their answers arrive: what was unrecorded is, per endpoint, the unanswered deliveries and the
 * latest answered ones, PER_ENDPOINT in all. Whatever the delay between an answer and its record.
 */
function unrecordedAtKill(received: Received[]): Set<string> {
  const ids = new Set<string>();
  for (const path of new Set(received.map((r) => r.path))) {
    const mine = received.filter((r) => r.path === path);
    const answered = mine
      .filter((r) => r.answeredAt !== undefined)
      .map((r) => r.answeredAt!)
      .sort((a, b) => b - a);
    const open = mine.length - answered.length;
    // The oldest answer that may still have been unrecorded, less the slack of arrival order.
    const from = open >= PER_ENDPOINT ? Infinity : (answered[PER_ENDPOINT - open - 1] ?? -Infinity) - ORDER_SLACK_MS;
    for (const r of mine) if (r.answeredAt === undefined || r.answeredAt >= from) ids.add(String(r.headers['webhook-id']));
  }
  return ids;
}

describe('a webhook worker SIGKILLed mid-delivery (docs/decisions/webhook-endpoints.md: at least once, the same webhook-id)', () => {
  let receiver: Receiver;
  let server: SpawnedServer | undefined;
  let cleanup: () => Promise<void>;
  before(async () => {
    receiver = await startReceiver(() => ({ status: 200, body: 'ok', delayMs: ANSWER_DELAY_MS }));
  });
  after(async () => {
    await server?.stop('SIGKILL');
    await cleanup?.();
    await receiver.close();
  });

  test('after the restart every message is delivered; only those in flight at the kill are repeated, with their webhook-id, within 5 s of the restart', async () => {
    const environment = await prepareEnvironment({ WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
    cleanup = environment.cleanup;
    server = await spawnServer(environment.env);
    const project = await createProject(server.url);
    const endpointIds: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const res = await project.api.post('/webhook-endpoints', { url: receiver.url(`/e${i}`), events: ['*'] });
      assert.equal(res.status, 201, res.text);
      endpointIds.push(res.body.id);
    }
    const tracks = Array.from({ length: EVENTS }, (_, i) =>
      project.publicApi.post('/v1/track', { email: uniqueEmail('crash'), event: 'order.placed', data: { order: `ord_${i}`, note: 'Доставка до двери — 配達' } }),
    );
    for (const res of await Promise.all(tracks)) assert.equal(res.status, 200, res.text);

    await receiver.waitFor(PER_ENDPOINT * 2, undefined, 30_000);
    const killed = server;
    await killed.stop('SIGKILL');
    const killedAt = Date.now();
    const before = receiver.received.slice();
    const inFlight = unrecordedAtKill(before);
    assert.ok(before.length < ENDPOINTS * EVENTS, 'the kill came before every message was delivered');
    assert.ok(
      before.some((r) => r.answeredAt === undefined),
      'deliveries were in flight at the kill',
    );

    server = await spawnServer(environment.env);
    const restartedAt = Date.now();
    const api = client(server.url, { key: project.secretKey });
    // The restarted worker finds its predecessor dead and takes over its claims at once.
    const deadline = Date.now() + (LEASE_SECONDS + 90) * 1000;
    const delivered = new Map<string, string[]>();
    for (;;) {
      delivered.clear();
      for (const id of endpointIds) {
        const page = await api.get(`/webhook-endpoints/${id}/messages?status=succeeded&limit=100`);
        delivered.set(
          id,
          page.body.data.map((m: { id: string }) => m.id),
        );
      }
      const total = [...delivered.values()].reduce((n, ids) => n + ids.length, 0);
      if (total === ENDPOINTS * EVENTS) break;
      assert.ok(Date.now() < deadline, `${total} of ${ENDPOINTS * EVENTS} messages delivered`);
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }

    const counts = new Map<string, number>();
    for (const r of receiver.received) counts.set(String(r.headers['webhook-id']), (counts.get(String(r.headers['webhook-id'])) ?? 0) + 1);
    for (const [endpointId, ids] of delivered) {
      const path = `/e${endpointIds.indexOf(endpointId)}`;
      for (const id of ids) {
        const copies = receiver.received.filter((r) => r.headers['webhook-id'] === id);
        assert.ok(copies.length >= 1, `${id} was never received`);
        assert.ok(
          copies.every((r) => r.path === path && r.body === copies[0]!.body),
          `${id}: the same body to the same endpoint on every try`,
        );
        if (copies.length > 1) {
          const times = copies.map((r) => `answered ${r.answeredAt === undefined ? 'never' : `${r.answeredAt - killedAt} ms`}`).join(', ');
          assert.ok(inFlight.has(id), `${id} was received ${copies.length} times (${times}, relative to the kill) but its answer had been recorded\n${problemsOf(killed)}`);
        }
      }
    }
    // A delivery the receiver had not answered when the worker died cannot have been recorded: sent again.
    const unanswered = before.filter((r) => r.answeredAt === undefined).map((r) => String(r.headers['webhook-id']));
    assert.ok(unanswered.length > 0);
    for (const id of unanswered) {
      assert.ok(counts.get(id)! >= 2, `${id} was in flight at the kill but not sent again`);
      // Taken over when the restarted worker found its predecessor dead, not when the lease ended.
      const again = receiver.received.filter((r) => r.headers['webhook-id'] === id && r.at > killedAt)[0]!;
      assert.ok(again.at - restartedAt < TAKEOVER_MS, `${id} was sent again ${again.at - restartedAt} ms after the restart (its lease: ${LEASE_SECONDS} s)`);
    }
    const repeated = [...counts.values()].filter((n) => n > 1).length;
    assert.ok(repeated <= Math.min(inFlight.size, ENDPOINTS * PER_ENDPOINT), `${repeated} repeated, ${inFlight.size} possibly unrecorded at the kill`);
    assert.equal(counts.size, ENDPOINTS * EVENTS, 'every message reached the receiver');
  });
});
