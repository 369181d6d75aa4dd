import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { MAX_IN_FLIGHT } from '../../src/delivery/delivery.service.ts';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { type CountingRelay, startCountingRelay } from '../kit/counting-relay.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { prepareEnvironment, type SpawnedServer, spawnServer } from '../kit/server.ts';

const SUBMISSIONS = 200;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** The submission port a spawned server logged ("SMTP listening"). */
async function submissionPort(server: SpawnedServer): Promise<number> {
  for (let tries = 0; tries < 100; tries++) {
    const match = /"smtp":\{[^}]*"submission":(\d+)/.exec(server.output());
    if (match) return Number(match[1]);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no SMTP port in the log:\n${server.output()}`);
}

describe('a worker killed during SMTP submissions loses no accepted message and sends none twice (docs/smtp.md)', () => {
  let dns: DnsServer;
  let relay: CountingRelay;
  let server: SpawnedServer | undefined;
  let cleanup: () => Promise<void>;
  before(async () => {
    dns = await startDnsServer();
    relay = await startCountingRelay({ delayMs: 20 });
  });
  after(async () => {
    await server?.stop('SIGKILL');
    await cleanup?.();
    await relay.close();
    await dns.close();
  });

  test(`SIGKILL during ${SUBMISSIONS} concurrent submissions, restart, resubmit what got no answer: every 250 delivered, each Message-ID one record`, async () => {
    const environment = await prepareEnvironment({ DNS_SERVERS: dns.address, SMTP_URL: relay.url, RATE_LIMIT_PER_MINUTE: '100000', SMTP_SUBMISSION_PORT: '0' });
    cleanup = environment.cleanup;
    server = await spawnServer(environment.env);
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const messages = Array.from({ length: SUBMISSIONS }, (_, i) => ({
      from: `billing@${domain.domain}`,
      to: uniqueEmail(`crash${i}`),
      subject: `Invoice ${1000 + i} — 請求書`,
      text: `Hello,\n\nyour invoice ${1000 + i} is attached.\n\n- Total: 42.00 EUR\n- Due: in 30 days\n`,
      attachments: [{ filename: `invoice-${1000 + i}.txt`, content: `Invoice ${1000 + i}\nTotal 42.00 EUR\n` }],
      messageId: `<invoice-${1000 + i}-${randomBytes(4).toString('hex')}@app.example.test>`,
    }));

    const submit = (port: number, batch: typeof messages) => {
      // 10 connections at once, each sending message after message (under the per-address limit).
      const transport = nodemailer.createTransport({
        host: '127.0.0.1',
        port,
        pool: true,
        maxConnections: 10,
        maxMessages: Infinity,
        auth: { user: 'billing-app', pass: project.secretKey },
      });
      const sent = batch.map((message) => transport.sendMail(message).then((info) => ({ message, response: info.response })));
      return { sent, close: () => transport.close() };
    };

    const first = submit(await submissionPort(server), messages);
    let accepted = 0;
    first.sent.forEach((p) =>
      p.then(
        () => accepted++,
        () => {},
      ),
    );
    const deadline = Date.now() + 120_000;
    while (accepted < SUBMISSIONS / 4) {
      assert.ok(Date.now() < deadline, `only ${accepted} submissions accepted`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await server.stop('SIGKILL');
    const outcomes = await Promise.allSettled(first.sent);
    first.close();
    const answered = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    assert.ok(answered.length < SUBMISSIONS, 'the kill came before every submission was answered');
    for (const { response } of answered) assert.match(response, /^250 2\.0\.0 Queued: /);

    // The app retries what got no answer, with the same Message-ID, on the restarted worker.
    server = await spawnServer(environment.env);
    const unanswered = messages.filter((m) => !answered.some((a) => a.message === m));
    const retry = submit(await submissionPort(server), unanswered);
    const retried = await Promise.all(retry.sent);
    retry.close();
    // A retried message the killed worker had committed is recognised, not sent again.
    const repeated = retried.filter((r) => /Already accepted/.test(r.response)).length;

    const api = client(server.url, { key: project.secretKey });
    const idOf = new Map([...answered, ...retried].map(({ message, response }) => [message.to, UUID.exec(response)![0]]));
    assert.equal(idOf.size, SUBMISSIONS);
    const settled = new Map<string, { status: string; to: string }>();
    const until = Date.now() + 180_000;
    while (settled.size < SUBMISSIONS) {
      assert.ok(Date.now() < until, `records still unfinished: ${SUBMISSIONS - settled.size}`);
      for (const [to, id] of idOf) {
        if (settled.has(to)) continue;
        const record = await api.get(`/emails/${id}`);
        if (!['QUEUED', 'SENDING'].includes(record.body.status)) settled.set(to, record.body);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    let repeats = 0;
    for (const message of messages) {
      assert.equal(settled.get(message.to)!.status, 'DELIVERED', message.to);
      const contact = (await api.get(`/contacts?search=${encodeURIComponent(message.to)}`)).body.data[0];
      const records = (await api.get(`/contacts/${contact.id}/emails`)).body.data;
      assert.equal(records.length, 1, `${message.to}: ${records.length} records`);
      const arrived = relay.messages.filter((m) => m.to.includes(message.to));
      assert.ok(arrived.length >= 1, `${message.to} never got its message`);
      assert.ok(
        arrived.every((m) => m.messageId === message.messageId),
        `${message.to}: another Message-ID`,
      );
      repeats += arrived.length - 1;
    }
    // Only deliveries handed to the relay and unanswered at the kill may repeat (at least once).
    assert.ok(repeats <= MAX_IN_FLIGHT, `${repeats} repeated deliveries (${repeated} retried submissions recognised)`);
  });
});
