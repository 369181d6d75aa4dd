import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender, uniqueDomain, verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { receiver } from '../kit/mailauth.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { codeOf, RawSmtp } from './raw-client.ts';

const MAX_MESSAGE_BYTES = 300_000;
const UUIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** A small real PNG (1×1, red), as an app would inline a logo. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

const bodyText = [
  'Hello Ana,',
  '',
  'Your order #4411 has shipped. It contains:',
  '- 2 × Notebook (A5, dotted)',
  '- 1 × 万年筆 (fountain pen)',
  '',
  'Thanks for shopping with us — Приятного дня!',
].join('\n');

describe('SMTP submission: apps send through the /v1/send pipeline (docs/smtp.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  let port: number;

  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({
      SMTP_URL: sink.url,
      SMTP_SUBMISSION_PORT: '0',
      SMTP_MAX_MESSAGE_BYTES: String(MAX_MESSAGE_BYTES),
      SPF_MECHANISMS: 'ip4:127.0.0.1',
    }));
    port = server.smtp!.ports.submission!;
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  test('nodemailer with AUTH PLAIN and the secret key: each recipient gets the message DKIM-verified, with its attachments, inline image and custom headers', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'orders');
    const [ana, ben, hidden] = [uniqueEmail('ana'), uniqueEmail('ben'), uniqueEmail('bcc')];
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port,
      secure: false,
      auth: { user: 'wordpress', pass: project.secretKey },
      tls: { rejectUnauthorized: false },
    });
    const pdf = randomBytes(40_000);
    const info = await transport.sendMail({
      from: { name: 'Boutique Éclair', address: from },
      to: [{ name: 'Ana Lima', address: ana }, ben],
      bcc: hidden,
      replyTo: 'support@example.test',
      subject: 'Your order #4411 has shipped — 発送しました',
      text: bodyText,
      html: `<p>Hello Ana,</p><p>Your order <b>#4411</b> has shipped.</p><ul><li>2 × Notebook</li><li>1 × 万年筆</li></ul><img src="cid:logo@shop">`,
      headers: { 'X-Order-Id': '4411', 'X-Mailer-App': 'Shop 3.2' },
      attachments: [
        { filename: 'invoice-4411.pdf', content: pdf, contentType: 'application/pdf' },
        { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@shop' },
      ],
    });
    transport.close();
    assert.match(info.response, /^250 2\.0\.0 Queued: /);
    const ids = info.response.match(UUIDS)!;
    assert.equal(ids.length, 3, info.response);

    const arrived = await sink.waitForMessages(3, 30_000);
    const mine = arrived.filter((m) => [ana, ben, hidden].includes(m.envelope.to[0]!));
    assert.deepEqual(mine.map((m) => m.envelope.to[0]).sort(), [ana, ben, hidden].sort());
    const check = receiver(dns);
    for (const message of mine) {
      const verdicts = await check(message.raw, { ip: '127.0.0.1', sender: message.envelope.from });
      assert.equal(verdicts.dkim, 'pass', verdicts.detail);
      assert.equal(verdicts.dkimDomain, from.split('@')[1]);
      const parsed = message.parsed;
      assert.equal(parsed.subject, 'Your order #4411 has shipped — 発送しました');
      assert.equal(parsed.headers.get('x-order-id'), '4411');
      assert.equal(parsed.headers.get('x-mailer-app'), 'Shop 3.2');
      assert.equal(parsed.from?.value[0]?.name, 'Boutique Éclair');
      assert.equal(parsed.replyTo?.value[0]?.address, 'support@example.test');
      assert.equal(parsed.messageId, info.messageId, 'the client’s own Message-ID is kept');
      // The blind copy's address is in its envelope only.
      assert.equal(message.raw.includes(Buffer.from(hidden)), false);
      assert.equal(parsed.text?.trim(), bodyText);
      const invoice = parsed.attachments.find((a) => a.filename === 'invoice-4411.pdf');
      assert.ok(invoice?.content.equals(pdf), 'the PDF arrives byte for byte');
      const logo = parsed.attachments.find((a) => a.cid === 'logo@shop');
      assert.ok(logo?.content.equals(PNG), 'the inline image keeps its Content-ID');
    }

    // Each recipient has its record, contact and events, as with /v1/send.
    for (const id of ids) {
      const record = await project.api.get(`/emails/${id}`);
      assert.equal(record.status, 200, record.text);
      assert.equal(record.body.subject, 'Your order #4411 has shipped — 発送しました');
      assert.equal(record.body.sourceType, 'TRANSACTIONAL');
    }
    const anaRecord = (await Promise.all(ids.map((id) => project.api.get(`/emails/${id}`)))).find((r) => r.body.to === ana)!;
    assert.ok(anaRecord.body.contactId);
  });

  test('AUTH: a wrong key and a public key get 535 5.7.8; the secret key 235', async () => {
    const { project } = await projectWithSender(server.url, dns);
    for (const password of [`sk_${randomBytes(24).toString('base64url')}`, project.publicKey]) {
      const smtp = await RawSmtp.open(port);
      const answer = await smtp.login(password);
      assert.match(answer, /^535 5\.7\.8 /);
      // Nothing but AUTH is possible without it.
      assert.match(await smtp.command(`MAIL FROM:<x@${uniqueDomain()}>`), /^530 /);
      smtp.close();
    }
    const smtp = await RawSmtp.open(port);
    assert.match(await smtp.login(project.secretKey), /^235 /);
    smtp.close();
  });

  test('MAIL FROM on a domain the project has not verified: 550 5.7.1 naming the domain', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const smtp = await RawSmtp.open(port);
    await smtp.login(project.secretKey);
    const stranger = uniqueDomain('other');
    const answer = await smtp.command(`MAIL FROM:<news@${stranger}>`);
    assert.equal(codeOf(answer), '550');
    assert.match(answer, new RegExp(`^550 5\\.7\\.1 The sender domain ${stranger.replaceAll('.', '\\.')} is not verified in this project`));
    smtp.close();
  });

  test('a named sending key submits, only from the sender domains it is limited to; a revoked one gets 535', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'rechnung');
    const other = await verifiedDomain(project, dns);
    const shop = from.slice(from.indexOf('@') + 1);
    const owner = client(server.url, { cookie: project.owner.cookie });
    const created = await owner.post(`/users/@me/projects/${project.id}/api-keys`, { name: 'Shop mailer', scope: 'sending', senderDomains: [shop] });
    assert.equal(created.status, 201, created.text);
    const smtp = await RawSmtp.open(port);
    assert.match(await smtp.login(created.body.key), /^235 /);
    const refused = await smtp.command(`MAIL FROM:<news@${other.domain}>`);
    assert.match(refused, new RegExp(`^550 5\\.7\\.1 This key may send only from ${shop.replaceAll('.', '\\.')}`));
    assert.match(await smtp.command(`MAIL FROM:<${from}>`), /^250 /);
    smtp.close();
    const revoked = await owner.delete(`/users/@me/projects/${project.id}/api-keys/${created.body.id}`);
    assert.ok(revoked.status < 300, revoked.text);
    const again = await RawSmtp.open(port);
    assert.match(await again.login(created.body.key), /^535 5\.7\.8 /);
    again.close();
  });

  test('pipelined commands get their replies in order; a message over the size limit gets 552 and makes no record', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const to = uniqueEmail('pipelined');
    const smtp = await RawSmtp.open(port);
    const ehlo = await smtp.command('EHLO client.example.test');
    assert.match(ehlo, /PIPELINING/);
    assert.match(ehlo, new RegExp(`SIZE ${MAX_MESSAGE_BYTES}`));
    assert.match(await smtp.command(`AUTH PLAIN ${Buffer.from(`\0app\0${project.secretKey}`).toString('base64')}`), /^235 /);

    // RFC 2920: MAIL, RCPT, RCPT and DATA in one write.
    smtp.write(`MAIL FROM:<${from}>\r\nRCPT TO:<${to}>\r\nRCPT TO:<not an address>\r\nDATA\r\n`);
    assert.match(await smtp.reply(), /^250 /);
    assert.match(await smtp.reply(), /^250 /);
    assert.match(await smtp.reply(), /^5\d\d /);
    assert.match(await smtp.reply(), /^354 /);
    smtp.write(`From: <${from}>\r\nTo: <${to}>\r\nSubject: Pipelined\r\n\r\nOne paragraph, sent in one go.\r\n.\r\n`);
    const accepted = await smtp.reply();
    assert.match(accepted, /^250 2\.0\.0 Queued: /);
    const [id] = accepted.match(UUIDS)!;
    assert.equal((await project.api.get(`/emails/${id}`)).body.to, to);

    const big = uniqueEmail('big');
    smtp.write(`MAIL FROM:<${from}>\r\nRCPT TO:<${big}>\r\nDATA\r\n`);
    for (const expected of [/^250 /, /^250 /, /^354 /]) assert.match(await smtp.reply(), expected);
    const line = `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(15)}\r\n`;
    smtp.write(`From: <${from}>\r\nTo: <${big}>\r\nSubject: Too big\r\n\r\n${line.repeat(Math.ceil(MAX_MESSAGE_BYTES / line.length) + 10)}.\r\n`);
    assert.match(await smtp.reply(), /^552 5\.3\.4 /);
    assert.match(await smtp.command('QUIT'), /^221 /);
    smtp.close();
    const contacts = await project.api.get(`/contacts?search=${encodeURIComponent(big)}`);
    assert.equal(contacts.body.total ?? contacts.body.data.length, 0, contacts.text);
  });

  test('a client that drops in the middle of DATA leaves no record', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const to = uniqueEmail('dropped');
    const smtp = await RawSmtp.open(port);
    await smtp.login(project.secretKey);
    smtp.write(`MAIL FROM:<${from}>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
    for (const expected of [/^250 /, /^250 /, /^354 /]) assert.match(await smtp.reply(), expected);
    smtp.write(`From: <${from}>\r\nTo: <${to}>\r\nSubject: Half a message\r\n\r\nThe first paragraph arrives, `);
    smtp.close();

    // A later message of the same project on a new connection is accepted and recorded alone.
    const next = await RawSmtp.open(port);
    await next.login(project.secretKey);
    const after = uniqueEmail('after');
    next.write(`MAIL FROM:<${from}>\r\nRCPT TO:<${after}>\r\nDATA\r\n`);
    for (const expected of [/^250 /, /^250 /, /^354 /]) assert.match(await next.reply(), expected);
    next.write(`From: <${from}>\r\nTo: <${after}>\r\nSubject: Whole\r\n\r\nComplete.\r\n.\r\n`);
    assert.match(await next.reply(), /^250 /);
    next.close();
    const dropped = await project.api.get(`/contacts?search=${encodeURIComponent(to)}`);
    assert.equal(dropped.body.data.length, 0, dropped.text);
    const kept = await project.api.get(`/contacts?search=${encodeURIComponent(after)}`);
    assert.equal(kept.body.data.length, 1, kept.text);
  });

  test('the same Message-ID submitted twice: both get 250 naming the same record, one message is sent', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const to = uniqueEmail('twice');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, auth: { user: 'django', pass: project.secretKey } });
    const message = {
      from,
      to,
      subject: 'Password reset',
      text: 'Use this link within an hour to choose a new password.',
      messageId: `<reset-${randomBytes(6).toString('hex')}@app.example.test>`,
    };
    const first = await transport.sendMail(message);
    const second = await transport.sendMail(message);
    transport.close();
    assert.match(first.response, /^250 2\.0\.0 Queued: /);
    assert.match(second.response, /^250 2\.0\.0 Already accepted/);
    assert.deepEqual(second.response.match(UUIDS), first.response.match(UUIDS));
    const contact = (await project.api.get(`/contacts?search=${encodeURIComponent(to)}`)).body.data[0];
    const records = await project.api.get(`/contacts/${contact.id}/emails`);
    assert.equal(records.body.data.length, 1, records.text);
    const [arrived] = await sink.waitForMessages(1, 30_000).then(() => waitFor(() => sink.messages.filter((m) => m.envelope.to[0] === to)));
    assert.equal(arrived!.parsed.messageId, message.messageId);
  });

  test('the same Message-ID again after IDEMPOTENCY_TTL_HOURS is a new message: 250 Queued with a new record, and a copy within the TTL of that one is not', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const to = uniqueEmail('monthly');
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, auth: { user: 'cron', pass: project.secretKey } });
    const message = {
      from,
      to,
      subject: 'Your invoice for November',
      text: 'Invoice 2026-11 is attached to your account.',
      messageId: `<invoice-${randomBytes(6).toString('hex')}@billing.example.test>`,
    };
    const first = await transport.sendMail(message);
    // The first submission is a day older than the TTL (24 hours by default).
    // (The time is computed here: Citus refuses timestamptz arithmetic on a column in an UPDATE.)
    await server.deps.db.query('UPDATE smtp_submissions SET created_at = $2 WHERE project_id = $1', [project.id, new Date(Date.now() - 25 * 3600_000)]);
    const again = await transport.sendMail(message);
    const copy = await transport.sendMail(message);
    transport.close();
    assert.match(first.response, /^250 2\.0\.0 Queued: /);
    assert.match(again.response, /^250 2\.0\.0 Queued: /);
    assert.notDeepEqual(again.response.match(UUIDS), first.response.match(UUIDS));
    assert.match(copy.response, /^250 2\.0\.0 Already accepted/);
    assert.deepEqual(copy.response.match(UUIDS), again.response.match(UUIDS));
    const contact = (await project.api.get(`/contacts?search=${encodeURIComponent(to)}`)).body.data[0];
    const records = await project.api.get(`/contacts/${contact.id}/emails`);
    assert.equal(records.body.data.length, 2, records.text);
  });
});

/** Polls until `find` returns a non-empty list. */
async function waitFor<T>(find: () => T[], timeoutMs = 30_000): Promise<T[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found.length) return found;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
