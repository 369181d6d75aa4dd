import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SinkMessage, type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const RATE = 10;

describe('SEND_RATE_PER_SECOND: a per-project throttle on outgoing mail (docs/architecture.md, docs/decisions/sending.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, SEND_RATE_PER_SECOND: String(RATE) }));
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  async function send(project: TestProject, from: string, count: number, label: string): Promise<void> {
    const to = Array.from({ length: count }, (_, i) => uniqueEmail(`${label}-${i}`));
    const res = await project.api.post('/v1/send', { to, from, subject: 'Throttled', body: '<p>Hello</p>' });
    assert.equal(res.status, 200, res.text);
  }

  async function receivedFrom(from: string, count: number): Promise<SinkMessage[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = sink.messages.filter((m) => m.envelope.from === from);
      if (found.length >= count) return found;
      if (Date.now() > deadline) assert.fail(`${found.length} of ${count} messages from ${from} arrived`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  test('a project over its rate is spread out, each message delivered once; another project is not held back', async () => {
    const busy = await projectWithSender(server.url, dns);
    const quiet = await projectWithSender(server.url, dns);
    const total = 4 * RATE;
    const accepting = Date.now();
    await send(busy.project, busy.from, total, 'busy');
    await send(quiet.project, quiet.from, 3, 'quiet');

    const quietMessages = await receivedFrom(quiet.from, 3);
    const busyMessages = await receivedFrom(busy.from, total);
    const times = busyMessages.map((m) => m.receivedAt).sort((a, b) => a - b);
    // A bucket of one second's worth, refilled at RATE per second: the last of 4 × RATE messages is
    // granted at least 3 seconds after the first take, which follows the request, and arrives after
    // its grant (measured from the first arrival instead, a loaded machine's delay of the first
    // messages shortened the span). No second grants more than the burst plus that second's
    // refill; arrivals trail the grants by a varying delay (a loaded machine with three test passes
    // bunched them by up to a second), so a second of arrivals may hold one more second's refill.
    // Unthrottled, all 4 × RATE would arrive within one second.
    const span = times.at(-1)! - accepting;
    assert.ok(span >= ((total - RATE) / RATE) * 1000, `${total} messages took ${span} ms from the request at ${RATE}/s`);
    for (const start of times) {
      const inOneSecond = times.filter((t) => t >= start && t < start + 1_000).length;
      assert.ok(inOneSecond <= 3 * RATE, `${inOneSecond} messages within one second at ${RATE}/s`);
    }
    assert.equal(new Set(busyMessages.flatMap((m) => m.envelope.to)).size, total, 'each recipient once');
    assert.ok(Math.max(...quietMessages.map((m) => m.receivedAt)) < times.at(-1)!, 'the quiet project did not wait behind the busy one');

    // Deferred for the rate, a record goes back to the queue without counting as an attempt. A
    // message can arrive before its answer is committed: the records are read once all are settled.
    const deadline = Date.now() + 30_000;
    let records: Array<{ status: string; attempts: number }>;
    for (;;) {
      records = await server.deps.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM emails WHERE project_id = $1', [busy.project.id]);
      if (records.every((r) => r.status !== 'SENDING' && r.status !== 'QUEUED') || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(records.length, total);
    assert.deepEqual(new Set(records.map((r) => `${r.status} after ${r.attempts}`)), new Set(['DELIVERED after 1']));
  });
});
