import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { startTestServer, startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const eventNames = async (api: any, contactId: string) => (await api.get(`/events?contactId=${contactId}`)).body.data.map((e: { name: string }) => e.name).sort();

describe('delivery over SMTP: bounces, suppression, retries (docs/decisions/sending.md)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let server: TestServer;
  const bounce = new Set<string>();
  const flaky = new Set<string>();
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({
      reply: (to, attempt) => (bounce.has(to.toLowerCase()) ? { code: 550 } : flaky.has(to.toLowerCase()) && attempt === 1 ? { code: 421 } : undefined),
    });
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url });
  });
  after(async () => {
    await server.close();
    await sink.close();
    await dns.close();
  });

  async function setup() {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    return { project, from: `hello@${domain.domain}` };
  }

  test('550 → BOUNCED, contact unsubscribed and suppressed; a second send makes a SUPPRESSED record and no message', async () => {
    const { project, from } = await setup();
    const to = uniqueEmail('bounce');
    bounce.add(to);
    const first = await project.api.post('/v1/send', { to, from, subject: 'One', body: '<p>1</p>', subscribed: true });
    assert.equal(first.status, 200, first.text);
    const [item] = first.body.data.emails;
    const record = await waitForStatus(project.api, item.email, ['BOUNCED']);
    assert.ok(record.bouncedAt);
    assert.match(record.error, /550/);
    const contact = await project.api.get(`/contacts/${item.contact.id}`);
    assert.equal(contact.body.subscribed, false);
    assert.deepEqual(await eventNames(project.api, item.contact.id), ['contact.unsubscribed', 'email.bounced']);
    const bounced = (await project.api.get(`/events?contactId=${item.contact.id}&name=email.bounced`)).body.data[0];
    assert.equal(bounced.data.bounceType, 'hard');
    assert.equal(bounced.data.emailId, item.email);

    const attempts = sink.attempts(to);
    const second = await project.api.post('/v1/send', { to, from, subject: 'Two', body: '<p>2</p>' });
    assert.equal(second.status, 200, second.text);
    const again = await project.api.get(`/emails/${second.body.data.emails[0].email}`);
    assert.equal(again.body.status, 'SUPPRESSED');
    assert.ok(again.body.error);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(sink.attempts(to), attempts, 'no delivery was attempted to a suppressed address');
    assert.ok((await eventNames(project.api, item.contact.id)).includes('email.suppressed'));
    assert.equal(sink.messages.filter((m) => m.envelope.to.includes(to)).length, 0);
  });

  test('421 → back to the queue with backoff, then delivered on the next attempt', async () => {
    const { project, from } = await setup();
    const to = uniqueEmail('flaky');
    flaky.add(to);
    const res = await project.api.post('/v1/send', { to, from, subject: 'Later', body: '<p>later</p>' });
    assert.equal(res.status, 200, res.text);
    const record = await waitForStatus(project.api, res.body.data.emails[0].email, ['DELIVERED'], 20_000);
    assert.equal(sink.attempts(to), 2);
    assert.equal(sink.messages.filter((m) => m.envelope.to.includes(to)).length, 1);
    assert.equal(record.error, null);
  });

  test('an answer whose write fails is written again: DELIVERED once, its events once, no second copy', async () => {
    const { project, from } = await setup();
    const to = uniqueEmail('answer-fault');
    // While this constraint stands the database refuses this record's answer (DELIVERED), so every
    // hand-off statement that carries it fails. A check constraint, unlike a trigger, is carried to
    // a Citus table's shards, so the same fault runs on the three databases.
    const name = `fault_${randomBytes(4).toString('hex')}`;
    await server.deps.db.exec(`ALTER TABLE emails ADD CONSTRAINT ${name} CHECK (to_address <> '${to}' OR status <> 'DELIVERED') NOT VALID`);
    let dropped = false;
    const drop = async () => {
      if (!dropped) await server.deps.db.exec(`ALTER TABLE emails DROP CONSTRAINT ${name}`);
      dropped = true;
    };
    try {
      const res = await project.api.post('/v1/send', {
        to,
        from,
        subject: 'Your receipt — 領収書',
        body: '<p>Thank you for your order.</p><ul><li>Notebook ×2</li><li>Pen ×5</li></ul><p>Спасибо за покупку.</p>',
      });
      assert.equal(res.status, 200, res.text);
      const { email, contact } = res.body.data.emails[0];
      const reached = Date.now() + 15_000;
      while (!sink.messages.some((m) => m.envelope.to.includes(to)) && Date.now() < reached) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.ok(
        sink.messages.some((m) => m.envelope.to.includes(to)),
        'the message reached the relay',
      );
      // The relay has it; its answer has been refused for a second (250 ms, then 500 ms, retries).
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal((await project.api.get(`/emails/${email}`)).body.status, 'SENDING', 'the answer could not be written while the fault stood');
      await drop();
      // Well inside the 30 s lease: without the retry the record stays SENDING until the lease ends.
      const record = await waitForStatus(project.api, email, ['DELIVERED'], 15_000);
      assert.equal(record.resends, 0);
      assert.equal(sink.messages.filter((m) => m.envelope.to.includes(to)).length, 1, 'one copy reached the relay');
      assert.deepEqual(await eventNames(project.api, contact.id), ['email.delivered', 'email.sent']);
    } finally {
      await drop();
    }
  });

  test('MARKETING template to an unsubscribed contact → SUPPRESSED record, no message; subscribed ones are sent', async () => {
    const { project, from } = await setup();
    const template = await project.api.post('/templates', { name: 'News', subject: 'News', body: '<p>news</p>', from });
    assert.equal(template.status, 201, template.text);
    assert.equal(template.body.type, 'MARKETING');
    const out = uniqueEmail('unsub');
    const inn = uniqueEmail('sub');
    const res = await project.api.post('/v1/send', { to: [out], template: template.body.id });
    assert.equal(res.status, 200, res.text);
    const skipped = await project.api.get(`/emails/${res.body.data.emails[0].email}`);
    assert.equal(skipped.body.status, 'SUPPRESSED');
    assert.match(skipped.body.error, /unsubscribed/);
    const sent = await project.api.post('/v1/send', { to: inn, template: template.body.id, subscribed: true });
    await waitForStatus(project.api, sent.body.data.emails[0].email, ['DELIVERED']);
    assert.equal(sink.messages.filter((m) => m.envelope.to.includes(out)).length, 0);
    // MARKETING mail carries RFC 8058 one-click unsubscribe headers, and is tracked.
    const message = sink.messages.find((m) => m.envelope.to.includes(inn))!;
    assert.match(message.raw.toString(), /\r\nList-Unsubscribe:\s*<http[^>]+>\r\n/);
    assert.match(message.raw.toString(), /\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n/);
    assert.match(String(message.parsed.html), /<img[^>]+width="1"/);
  });

  test('HEADLESS mail is sent exactly as rendered: no pixel, no rewritten links, no List-Unsubscribe', async () => {
    const { project, from } = await setup();
    const body = '<p>Read <a href="https://example.com/doc">the doc</a></p>';
    const template = await project.api.post('/templates', { name: 'Raw', subject: 'Raw', body, from, type: 'HEADLESS' });
    assert.equal(template.status, 201, template.text);
    const to = uniqueEmail('headless');
    const res = await project.api.post('/v1/send', { to, template: template.body.id });
    await waitForStatus(project.api, res.body.data.emails[0].email, ['DELIVERED']);
    const message = sink.messages.find((m) => m.envelope.to.includes(to))!;
    assert.equal(String(message.parsed.html).trim(), body);
    assert.doesNotMatch(message.raw.toString(), /List-Unsubscribe/i);
  });
});

describe('delivery to the outbox when SMTP_URL is unset (docs/architecture.md, docs/decisions/sending.md)', () => {
  let dns: DnsServer;
  let server: TestServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  test('each message is written once as DATA_DIR/outbox/<record-id>.eml and counts as DELIVERED', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const to = [uniqueEmail('eml'), uniqueEmail('eml')];
    const res = await project.api.post('/v1/send', { to, from: `a@${domain.domain}`, subject: 'Saved {{ email }}', body: '<p>x</p>' });
    assert.equal(res.status, 200, res.text);
    const outbox = join(server.dataDir, 'outbox');
    for (const [i, item] of res.body.data.emails.entries()) {
      await waitForStatus(project.api, item.email, ['DELIVERED']);
      const file = join(outbox, `${item.email}.eml`);
      assert.ok(existsSync(file));
      const parsed = await simpleParser(readFileSync(file));
      assert.equal(parsed.subject, `Saved ${to[i]}`);
      assert.match(String(parsed.headers.get('dkim-signature') ? 'signed' : ''), /signed/);
    }
    assert.equal(readdirSync(outbox).filter((name) => name.startsWith('.')).length, 0, 'no temporary files are left');
  });
});
