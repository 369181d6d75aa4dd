import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SendRate } from '../../src/deliverability/send-rate.ts';
import { createProject } from '../kit/accounts.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

// docs/streams.md, "SEND_RATE_PER_SECOND across workers": the bucket is in the database, so two
// workers (each with its own SendRate, as each process has) take from one bucket per project.

const RATE = 50;

describe('SEND_RATE_PER_SECOND holds across workers (docs/streams.md)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
  });

  test(`two workers taking chunks of marketing and transactional mail at once send at most ${RATE} a second together`, async () => {
    const project = await createProject(server.url);
    const workers = [new SendRate(server.deps.db, RATE), new SendRate(server.deps.db, RATE)];
    const grants: Array<{ at: number; n: number }> = [];
    const started = Date.now();
    const durationMs = 2_500;
    // Each worker asks for chunks as its lanes would, deferring what it is refused for as long as told.
    const lane = async (worker: SendRate, stream: 'marketing' | 'transactional', chunk: number) => {
      while (Date.now() - started < durationMs) {
        const { now, laterMs, at } = await worker.take(project.id, stream, chunk);
        if (now > 0) grants.push({ at: at!, n: now });
        await new Promise((resolve) => setTimeout(resolve, now === chunk ? 0 : Math.min(100, laterMs[0] ?? 0)));
      }
    };
    await Promise.all([lane(workers[0]!, 'marketing', 100), lane(workers[1]!, 'marketing', 100), lane(workers[0]!, 'transactional', 5), lane(workers[1]!, 'transactional', 5)]);
    const elapsed = Date.now() - started;
    const total = grants.reduce((sum, g) => sum + g.n, 0);
    // A bucket of one second's worth, refilled at RATE per second: at most RATE × (1 + seconds).
    assert.ok(total <= RATE * (1 + elapsed / 1000), `${total} granted in ${elapsed} ms at ${RATE}/s`);
    // And the rate is used, not starved: at least the refill of the time, less a second.
    assert.ok(total >= RATE * (elapsed / 1000 - 1), `only ${total} granted in ${elapsed} ms at ${RATE}/s`);
    // Per second of the bucket's clock (the database's): one bucket plus one second's refill. Times
    // taken on arrival here would add the varying delay of each answer under load.
    for (const g of grants) {
      const inOneSecond = grants.filter((h) => h.at >= g.at && h.at < g.at + 1_000).reduce((sum, h) => sum + h.n, 0);
      assert.ok(inOneSecond <= 2 * RATE, `${inOneSecond} granted within one second`);
    }
  });

  test('marketing leaves a fifth of the bucket to transactional mail; another project has its own bucket', async () => {
    const project = await createProject(server.url);
    const other = await createProject(server.url);
    const worker = new SendRate(server.deps.db, RATE);
    const campaign = await worker.take(project.id, 'marketing', 1_000);
    assert.equal(campaign.now, RATE * 0.8, 'a campaign takes the bucket down to the reserve');
    assert.equal(campaign.laterMs.length, 1_000 - RATE * 0.8);
    assert.ok(
      campaign.laterMs.every((ms, k) => ms > 0 && (k === 0 || ms >= campaign.laterMs[k - 1]!)),
      'the deferred are spaced out, in order',
    );
    const reset = await new SendRate(server.deps.db, RATE).take(project.id, 'transactional', 3);
    assert.equal(reset.now, 3, 'a transactional message finds tokens, from another worker too');
    assert.equal((await worker.take(other.id, 'marketing', 10)).now, 10);
  });
});
