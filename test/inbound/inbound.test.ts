import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { Webhook } from 'standardwebhooks';
import { removeExpiredInbound } from '../../src/inbound/inbound.jobs.ts';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { uniqueDomain, verifiedDomain } from '../kit/domains.ts';
import { type Receiver, startReceiver } from '../kit/receiver.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { buildWorkflow, enable, eventually, waitForExecution } from '../kit/workflows.ts';
import { codeOf, RawSmtp } from '../smtp/raw-client.ts';

const MX_HOST = 'mx.mailroom-inbound.example.test';

// A customer writing to a shop's support address: several paragraphs, a list, three scripts.
const TEXT = [
  'Bonjour,',
  '',
  'ma commande n° 4471 est arrivée incomplète. Il manque :',
  '- la lampe « Aurore » (référence AU-12)',
  '- deux abat-jour en lin',
  '',
  '注文番号4471の商品が一部届いていません。ご確認をお願いいたします。',
  '',
  'С уважением,',
  'Zoë Ämmälä',
].join('\n');
const HTML = `<p>Bonjour,</p><p>ma commande n° 4471 est arrivée incomplète. Il manque :</p>
<ul><li>la lampe « Aurore » (référence AU-12)</li><li>deux abat-jour en lin</li></ul>
<p>注文番号4471の商品が一部届いていません。ご確認をお願いいたします。</p><p>С уважением,<br>Zoë Ämmälä</p>`;
const RECEIPT_CSV = 'article;quantité;prix\nLampe Aurore;1;89,00\nAbat-jour lin;2;24,50\n';

describe('inbound mail: a domain with inbound on receives mail at any address (docs/inbound.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  let hooks: Receiver;
  let inbound: nodemailer.Transporter;

  before(async () => {
    sink = await startSmtpSink();
    hooks = await startReceiver();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, SMTP_INBOUND_PORT: '0', SMTP_HOSTNAME: MX_HOST, WEBHOOK_ALLOW_PRIVATE: 'true' }));
    inbound = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtp!.ports.inbound!, secure: false, ignoreTLS: true });
  });
  after(async () => {
    inbound.close();
    await server.close();
    await sink.close();
    await hooks.close();
  });

  /** A project with a verified domain whose inbound mail is on (and its MX published). */
  async function receivingProject(): Promise<{ project: TestProject; domain: string; domainId: string }> {
    const project = await createProject(server.url);
    const { id, domain } = await verifiedDomain(project, dns);
    const patched = await project.api.patch(`/domains/${id}`, { inbound: true });
    assert.equal(patched.status, 200, patched.text);
    return { project, domain, domainId: id };
  }

  test('PATCH /domains/{id}: inbound on a verified domain shows its MX; a pending domain is refused; off again refuses its mail', async () => {
    const project = await createProject(server.url);
    const pending = await project.api.post('/domains', { domain: uniqueDomain('pending') });
    assert.equal(pending.status, 201, pending.text);
    assert.equal(pending.body.inbound, false);
    const refused = await project.api.patch(`/domains/${pending.body.id}`, { inbound: true });
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body.error.code, 'DOMAIN_NOT_VERIFIED');

    const { id, domain } = await verifiedDomain(project, dns);
    const initial = await project.api.get(`/domains/${id}`);
    assert.equal(initial.body.records.filter((r: { type: string; name: string }) => r.type === 'MX' && r.name === domain).length, 0, 'no root MX advised while inbound is off');
    const on = await project.api.patch(`/domains/${id}`, { inbound: true });
    assert.equal(on.status, 200, on.text);
    assert.equal(on.body.inbound, true);
    const mx = on.body.records.find((r: { type: string; name: string }) => r.type === 'MX' && r.name === domain);
    assert.deepEqual({ value: mx.value, priority: mx.priority, required: mx.required, state: mx.state }, { value: MX_HOST, priority: 10, required: false, state: 'not_checked' });
    dns.set(domain, 'MX', [{ exchange: MX_HOST, priority: 10 }]);
    const checked = await project.api.get(`/domains/${id}/verify`);
    assert.equal(checked.body.status, 'verified');
    assert.equal(checked.body.records.find((r: { type: string; name: string }) => r.type === 'MX' && r.name === domain).state, 'found');

    const off = await project.api.patch(`/domains/${id}`, { inbound: false });
    assert.equal(off.body.inbound, false);
    const smtp = await RawSmtp.open(server.smtp!.ports.inbound!);
    assert.equal(codeOf(await smtp.command('EHLO relay.example.test')), '250');
    assert.equal(codeOf(await smtp.command(`MAIL FROM:<${uniqueEmail('sender')}>`)), '250');
    assert.match(await smtp.command(`RCPT TO:<support@${domain}>`), /^550 5\.1\.1 /, 'inbound off: refused at RCPT');
    assert.match(await smtp.command(`RCPT TO:<someone@${uniqueDomain('unknown')}>`), /^550 5\.1\.1 /, 'a domain nobody has: refused at RCPT');
    smtp.close();
  });

  test('GET /smtp/settings: the host and listeners an app or the dashboard shows', async () => {
    const project = await createProject(server.url);
    const settings = await project.api.get('/smtp/settings');
    assert.equal(settings.status, 200, settings.text);
    assert.deepEqual(
      { hostname: settings.body.hostname, submission: settings.body.submission, submissions: settings.body.submissions, starttls: settings.body.starttls },
      { hostname: MX_HOST, submission: null, submissions: null, starttls: false },
    );
    assert.notEqual(settings.body.inbound, null);
    assert.equal(settings.body.maxMessageBytes, 26_214_400);
    assert.equal((await fetch(`${server.url}/smtp/settings`)).status, 401);
  });

  test('a message to an enabled domain is stored, parsed, served raw, and its email.received event triggers a workflow and a webhook, once', async () => {
    const { project, domain } = await receivingProject();
    const endpoint = await project.api.post('/webhook-endpoints', { url: hooks.url('/received'), events: ['email.received'] });
    assert.equal(endpoint.status, 201, endpoint.text);
    const flow = await buildWorkflow(project.api, { name: 'Support triage', eventName: 'email.received' }, [
      { type: 'WEBHOOK', config: { url: hooks.url('/triage'), body: { subject: '{{event.subject}}', from: '{{email}}', attachment: '{{event.attachments[0].filename}}' } } },
    ]);
    await enable(project.api, flow.id);

    const customer = uniqueEmail('zoe');
    const messageId = `<${Date.now()}.4471@client.example.test>`;
    const mail = {
      envelope: { from: customer, to: [`support@${domain}`, `ventes@${domain}`] },
      from: { name: 'Zoë Ämmälä', address: customer },
      to: `Support <support@${domain}>`,
      cc: `ventes@${domain}`,
      subject: 'Commande 4471 incomplète — 注文4471',
      messageId,
      text: TEXT,
      html: HTML,
      attachments: [{ filename: 'récapitulatif.csv', content: RECEIPT_CSV, contentType: 'text/csv' }],
    };
    const info = await inbound.sendMail(mail);
    assert.match(info.response, /^250 /);

    const listed = await project.api.get('/inbound');
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.total, 1);
    const summary = listed.body.data[0];
    assert.equal(summary.contact.email, customer);
    assert.deepEqual(summary.to.sort(), [`support@${domain}`, `ventes@${domain}`]);
    assert.deepEqual(
      { from: summary.from, subject: summary.subject, messageId: summary.messageId, cc: summary.cc },
      {
        from: { email: customer, name: 'Zoë Ämmälä' },
        subject: mail.subject,
        messageId,
        cc: [`ventes@${domain}`],
      },
    );

    const message = (await project.api.get(`/inbound/${summary.id}`)).body;
    assert.equal(message.text.trim(), TEXT);
    assert.match(message.html, /<li>la lampe « Aurore » \(référence AU-12\)<\/li>/);
    assert.deepEqual(message.attachments, [{ filename: 'récapitulatif.csv', contentType: 'text/csv', size: Buffer.byteLength(RECEIPT_CSV), contentId: null }]);
    assert.equal(message.headers.find((h: { name: string }) => h.name === 'message-id').value, messageId);

    const raw = await fetch(`${server.url}/inbound/${summary.id}/raw`, { headers: { authorization: `Bearer ${project.secretKey}` } });
    assert.equal(raw.status, 200);
    assert.match(raw.headers.get('content-type')!, /^message\/rfc822/);
    const rawText = await raw.text();
    assert.match(rawText, new RegExp(`^Message-ID: ${messageId.replaceAll('.', '\\.')}\\r$`, 'im'));
    assert.equal(Buffer.byteLength(rawText), summary.size);

    // The sender became a contact, not subscribed by writing in.
    const contact = (await project.api.get(`/contacts/${summary.contact.id}`)).body;
    assert.equal(contact.subscribed, false);

    await hooks.waitFor(1, '/received');
    const delivery = hooks.received.find((r) => r.path === '/received')!;
    const payload = new Webhook(endpoint.body.secret).verify(delivery.body, delivery.headers as Record<string, string>) as any;
    assert.equal(payload.type, 'email.received');
    assert.equal(payload.data.contact.email, customer);
    assert.deepEqual(
      { inboundId: payload.data.data.inboundId, subject: payload.data.data.subject, from: payload.data.data.from, messageId: payload.data.data.messageId },
      { inboundId: summary.id, subject: mail.subject, from: customer, messageId },
    );
    assert.equal(payload.data.data.text.trim(), TEXT);
    assert.deepEqual(payload.data.data.attachments, [{ filename: 'récapitulatif.csv', contentType: 'text/csv', size: Buffer.byteLength(RECEIPT_CSV) }]);

    const execution = await waitForExecution(project.api, flow.id, summary.contact.id, ['COMPLETED', 'FAILED']);
    assert.equal(execution.status, 'COMPLETED', JSON.stringify(execution.steps));
    await hooks.waitFor(1, '/triage');
    assert.deepEqual(JSON.parse(hooks.received.find((r) => r.path === '/triage')!.body), { subject: mail.subject, from: customer, attachment: 'récapitulatif.csv' });

    const activity = await project.api.get('/activity?type=email.received');
    assert.equal(activity.body.data.length, 1);

    // The same message again (a sender retrying after a lost answer): 250, received once.
    const again = await inbound.sendMail(mail);
    assert.match(again.response, /^250 /);
    assert.equal((await project.api.get('/inbound')).body.total, 1);
    assert.equal((await project.api.get(`/events?name=email.received&contactId=${summary.contact.id}`)).body.data.length, 1);

    // Another project's key sees none of it.
    const stranger = await createProject(server.url);
    assert.equal((await stranger.api.get(`/inbound/${summary.id}`)).status, 404);
    assert.equal((await stranger.api.get('/inbound')).body.total, 0);
  });

  test('a reply is linked to the email record it answers, which lists it; retention removes old messages', async () => {
    const { project, domain } = await receivingProject();
    const customer = uniqueEmail('kenji');
    const sent = await project.api.post('/v1/send', {
      to: customer,
      from: { name: 'Atelier Lumière', email: `bonjour@${domain}` },
      subject: 'Votre commande 5120 est expédiée',
      body: '<p>Bonjour,</p><p>Votre colis est parti ce matin.</p><ul><li>Lampe « Aurore »</li><li>花瓶</li></ul>',
    });
    assert.equal(sent.status, 200, sent.text);
    const emailId = sent.body.data.emails[0].email;
    const record = await eventually('the record sent', async () => {
      const body = (await project.api.get(`/emails/${emailId}`)).body;
      return ['SENT', 'DELIVERED'].includes(body.status) ? body : undefined;
    });
    assert.deepEqual(record.replies, []);

    const info = await inbound.sendMail({
      envelope: { from: customer, to: [`bonjour@${domain}`] },
      from: customer,
      to: `bonjour@${domain}`,
      subject: 'Re: Votre commande 5120 est expédiée',
      inReplyTo: record.messageId,
      references: [`<thread-start@client.example.test>`, record.messageId],
      text: 'Merci beaucoup !\n\nありがとうございます。\n\n> Votre colis est parti ce matin.',
    });
    assert.match(info.response, /^250 /);

    const withReply = (await project.api.get(`/emails/${emailId}`)).body;
    assert.equal(withReply.replies.length, 1);
    assert.equal(withReply.replies[0].subject, 'Re: Votre commande 5120 est expédiée');
    assert.equal(withReply.replies[0].from.email, customer);
    const reply = (await project.api.get(`/inbound/${withReply.replies[0].id}`)).body;
    assert.deepEqual({ emailId: reply.emailId, inReplyTo: reply.inReplyTo }, { emailId, inReplyTo: record.messageId });
    const event = (await project.api.get(`/events?name=email.received&contactId=${reply.contact.id}`)).body.data[0];
    assert.equal(event.emailId, emailId);
    assert.equal(event.data.emailId, emailId);
    assert.equal((await project.api.get(`/inbound?emailId=${emailId}`)).body.total, 1);

    // A message answering nothing of ours is received unlinked.
    await inbound.sendMail({
      envelope: { from: customer, to: [`bonjour@${domain}`] },
      from: customer,
      to: `bonjour@${domain}`,
      subject: 'Autre question',
      inReplyTo: '<unknown@elsewhere.example.test>',
      text: 'Une autre question…',
    });
    const listed = (await project.api.get('/inbound?limit=1')).body;
    assert.equal(listed.total, 2);
    assert.equal(listed.data[0].emailId, null);
    assert.equal(listed.hasMore, true);
    const next = (await project.api.get(`/inbound?limit=1&cursor=${encodeURIComponent(listed.cursor)}`)).body;
    assert.equal(next.data[0].id, reply.id);

    // INBOUND_RETENTION_DAYS (30 here): a message received 31 days ago goes at the next cleanup.
    await server.deps.db.query(`UPDATE inbound_messages SET created_at = now() - interval '31 days' WHERE project_id = $1 AND id = $2`, [project.id, reply.id]);
    assert.ok((await removeExpiredInbound(server.deps)) >= 1);
    assert.equal((await project.api.get(`/inbound/${reply.id}`)).status, 404);
    assert.equal((await project.api.get('/inbound')).body.total, 1);
    assert.deepEqual((await project.api.get(`/emails/${emailId}`)).body.replies, []);
  });
});
