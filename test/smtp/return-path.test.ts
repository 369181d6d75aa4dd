import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { PACKAGE_ROOT } from '../../src/paths.ts';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { publishRecords, uniqueDomain } from '../kit/domains.ts';
import { receiver as mailReceiver } from '../kit/mailauth.ts';
import { type Receiver, startReceiver } from '../kit/receiver.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SinkMessage, type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { RawSmtp } from './raw-client.ts';

const MX_HOST = 'mx.mailroom-tests.example.test';
const FIXTURES = join(PACKAGE_ROOT, 'test', 'fixtures', 'return-path');

/** A real-world-shaped report from test/fixtures/return-path, addressed to one sent message. */
function fixture(name: string, sent: { verp: string; to: string; messageId: string; subject: string }): string {
  return readFileSync(join(FIXTURES, name), 'utf8')
    .replaceAll('{{VERP}}', sent.verp)
    .replaceAll('{{RECIPIENT}}', sent.to)
    .replaceAll('{{MESSAGE_ID}}', sent.messageId)
    .replaceAll('{{SUBJECT}}', sent.subject)
    .replace(/\r?\n/g, '\r\n');
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

describe('return path: bounces, complaints and auto-replies from any relay come back to the record (docs/smtp.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  let hooks: Receiver;

  before(async () => {
    sink = await startSmtpSink();
    hooks = await startReceiver();
    ({ server, dns } = await startTestServerWithDns({
      SMTP_URL: sink.url,
      SMTP_INBOUND_PORT: '0',
      SMTP_HOSTNAME: MX_HOST,
      SPF_MECHANISMS: 'ip4:127.0.0.1',
      WEBHOOK_ALLOW_PRIVATE: 'true',
    }));
  });
  after(async () => {
    await server.close();
    await sink.close();
    await hooks.close();
  });

  test('a hard bounce, a soft one, an ARF complaint and an auto-reply, each to a sent message’s VERP address; a forged one is refused at RCPT', async () => {
    const project = await createProject(server.url);
    const domain = uniqueDomain('shop');

    // POST /domains gives the bounce MX and its SPF; once published, the check finds them.
    const created = await project.api.post('/domains', { domain });
    assert.equal(created.status, 201, created.text);
    const mx = created.body.records.find((r: { type: string }) => r.type === 'MX');
    assert.deepEqual(
      { name: mx.name, value: mx.value, priority: mx.priority, required: mx.required },
      { name: `bounces.${domain}`, value: MX_HOST, priority: 10, required: false },
    );
    const bounceSpf = created.body.records.find((r: { type: string; name: string }) => r.type === 'TXT' && r.name === `bounces.${domain}`);
    assert.equal(bounceSpf.value, 'v=spf1 ip4:127.0.0.1 ~all');
    publishRecords(dns, created.body);
    dns.set(`bounces.${domain}`, 'MX', [{ exchange: MX_HOST, priority: 10 }]);
    dns.set(`bounces.${domain}`, 'TXT', [bounceSpf.value]);
    dns.set(domain, 'TXT', ['v=spf1 ip4:127.0.0.1 ~all']);
    dns.set(`_dmarc.${domain}`, 'TXT', ['v=DMARC1; p=reject; aspf=r']);
    const verified = await project.api.get(`/domains/${created.body.id}/verify`);
    assert.equal(verified.body.status, 'verified', verified.text);
    assert.deepEqual(
      verified.body.records.filter((r: { name: string }) => r.name === `bounces.${domain}`).map((r: { state: string }) => r.state),
      ['found', 'found'],
    );

    const hook = await project.api.post('/webhook-endpoints', { url: hooks.url('/return-path'), events: ['email.bounced', 'email.complained', 'email.auto_replied'] });
    assert.equal(hook.status, 201, hook.text);

    const cases = ['hard', 'soft', 'complaint', 'auto-reply'] as const;
    const recipients = Object.fromEntries(cases.map((c) => [c, uniqueEmail(c)])) as Record<(typeof cases)[number], string>;
    const sent = await project.api.post('/v1/send', {
      to: Object.values(recipients),
      from: { name: 'Atelier Lumière', email: `news@${domain}` },
      subject: 'Nos nouveautés de novembre',
      body: '<p>Bonjour {{contact.email}},</p><ul><li>Lampe « Aurore »</li><li>Vase 花瓶</li></ul>',
    });
    assert.equal(sent.status, 200, sent.text);
    const arrived = await until('the four messages', async () => {
      const mine = sink.messages.filter((m) => Object.values(recipients).includes(m.envelope.to[0]!));
      return mine.length === 4 ? mine : undefined;
    });
    const byCase = (c: (typeof cases)[number]): SinkMessage => arrived.find((m) => m.envelope.to[0] === recipients[c])!;

    // The envelope sender is a signed VERP address at the bounce subdomain; SPF passes there and
    // aligns with From under relaxed alignment, so DMARC passes on SPF as well as DKIM.
    const check = mailReceiver(dns);
    for (const message of arrived) {
      assert.match(message.envelope.from, new RegExp(`^b-[0-9a-f]{32}-[0-9a-f]{16}@bounces\\.${domain.replaceAll('.', '\\.')}$`));
      // A temperror is a lookup that got no answer in time (a loaded machine), not a verdict: asked again.
      let verdicts = await check(message.raw, { ip: '127.0.0.1', sender: message.envelope.from });
      for (let again = 0; again < 3 && [verdicts.spf, verdicts.dmarc].includes('temperror'); again++)
        verdicts = await check(message.raw, { ip: '127.0.0.1', sender: message.envelope.from });
      assert.deepEqual({ dkim: verdicts.dkim, spf: verdicts.spf, dmarc: verdicts.dmarc }, { dkim: 'pass', spf: 'pass', dmarc: 'pass' }, verdicts.detail);
    }
    const recordOf = (c: (typeof cases)[number]) => sent.body.data.emails.find((e: { contact: { email: string } }) => e.contact.email === recipients[c]);

    const inbound = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtp!.ports.inbound!, secure: false, ignoreTLS: true });
    const files = { hard: 'postfix-hard-bounce.eml', soft: 'mailbox-full.eml', complaint: 'arf-complaint.eml', 'auto-reply': 'vacation-auto-reply.eml' };
    for (const c of cases) {
      const message = byCase(c);
      const raw = fixture(files[c], {
        verp: message.envelope.from,
        to: recipients[c],
        messageId: `<${message.parsed.messageId}>`.replace(/^<</, '<').replace(/>>$/, '>'),
        subject: message.parsed.subject!,
      });
      const info = await inbound.sendMail({ envelope: { from: c === 'auto-reply' ? recipients[c] : '', to: [message.envelope.from] }, raw });
      assert.match(info.response, /^250 /, `${c}: ${info.response}`);
    }
    inbound.close();

    const status = async (c: (typeof cases)[number]) => (await project.api.get(`/emails/${recordOf(c).email}`)).body;
    const events = async (c: (typeof cases)[number], name: string) => (await project.api.get(`/events?contactId=${recordOf(c).contact.id}&name=${name}`)).body.data;
    const suppressed = async (address: string) => (await project.api.get(`/suppressions?search=${encodeURIComponent(address)}`)).body.data;

    const hard = await status('hard');
    assert.equal(hard.status, 'BOUNCED');
    assert.match(hard.error, /5\.1\.1/);
    assert.equal((await events('hard', 'email.bounced'))[0]?.data.bounceType, 'hard');
    assert.equal((await suppressed(recipients.hard))[0]?.reason, 'HARD_BOUNCE');

    assert.equal((await status('soft')).status, 'DELIVERED', 'a full mailbox does not change the record');
    assert.equal((await events('soft', 'email.bounced'))[0]?.data.bounceType, 'soft');
    assert.deepEqual(await suppressed(recipients.soft), [], 'a soft bounce never suppresses');

    assert.equal((await status('complaint')).status, 'COMPLAINED');
    assert.equal((await events('complaint', 'email.complained'))[0]?.data.feedbackType, 'abuse');
    assert.equal((await suppressed(recipients.complaint))[0]?.reason, 'COMPLAINT');

    assert.equal((await status('auto-reply')).status, 'DELIVERED', 'an auto-reply is not a bounce');
    const autoReplied = await events('auto-reply', 'email.auto_replied');
    assert.equal(autoReplied.length, 1);
    assert.match(autoReplied[0].data.subject, /^Réponse automatique/);
    assert.deepEqual(await events('auto-reply', 'email.bounced'), []);
    assert.deepEqual(await suppressed(recipients['auto-reply']), []);

    // The customer's webhook hears each.
    await until('three webhook deliveries', async () => (hooks.received.filter((r) => r.path === '/return-path').length >= 4 ? true : undefined));
    const types = hooks.received
      .filter((r) => r.path === '/return-path')
      .map((r) => JSON.parse(r.body).type)
      .sort();
    assert.deepEqual(types, ['email.auto_replied', 'email.bounced', 'email.bounced', 'email.complained']);

    // A VERP address with a forged signature, and an unknown address, are refused at RCPT.
    const smtp = await RawSmtp.open(server.smtp!.ports.inbound!);
    await smtp.command('EHLO relay.example.net');
    await smtp.command('MAIL FROM:<>');
    const forged = byCase('hard').envelope.from.replace(/-[0-9a-f]{16}@/, '-0123456789abcdef@');
    assert.match(await smtp.command(`RCPT TO:<${forged}>`), /^550 5\.1\.1 /);
    assert.match(await smtp.command(`RCPT TO:<someone@${domain}>`), /^550 5\.1\.1 /);
    smtp.close();
  });
});
