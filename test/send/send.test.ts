import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, test } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

describe('POST /v1/send delivered over SMTP (the API reference /v1/send; docs/decisions/sending.md)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let server: TestServer;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
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
    return { project, domain, from: `hello@${domain.domain}` };
  }

  const messageTo = (address: string) => sink.messages.filter((m) => m.envelope.to.includes(address));
  async function waitForMessageTo(address: string, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (messageTo(address).length === 0) {
      if (Date.now() > deadline) assert.fail(`no message to ${address}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return messageTo(address)[0]!;
  }

  test('inline send: 200 shape, record queued then DELIVERED, message per docs/decisions/sending.md with a verifying DKIM signature', async () => {
    const { project, domain, from } = await setup();
    const to = uniqueEmail('inline');
    const res = await project.api.post('/v1/send', {
      to,
      from: { name: 'Acme Support', email: from },
      reply: 'replies@elsewhere.test',
      subject: 'Hello {{ name ?? "friend" }}',
      body: '<p>Hi {{ name ?? "friend" }}, your plan is {{ plan }}.</p>',
      data: { name: 'Ada', plan: { value: 'pro', persistent: false } },
      headers: { 'X-Campaign-Ref': 'abc-123' },
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), ['data', 'success']);
    assert.equal(res.body.success, true);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['emails', 'timestamp']);
    assert.equal(res.body.data.emails.length, 1);
    const [item] = res.body.data.emails;
    assert.deepEqual(Object.keys(item).sort(), ['contact', 'email']);
    assert.equal(item.contact.email, to);

    const record = await waitForStatus(project.api, item.email, ['DELIVERED']);
    assert.equal(record.id, item.email);
    assert.equal(record.contactId, item.contact.id);
    assert.equal(record.to, to);
    assert.equal(record.from, from);
    assert.equal(record.subject, 'Hello Ada');
    assert.equal(record.sourceType, 'TRANSACTIONAL');
    assert.equal(record.messageId, `<${item.email}@${domain.domain}>`);
    assert.ok(record.sentAt && record.deliveredAt);
    assert.equal(record.error, null);

    const message = await waitForMessageTo(to);
    const parsed = message.parsed;
    assert.equal(parsed.from?.value[0]?.name, 'Acme Support');
    assert.equal(parsed.from?.value[0]?.address, from);
    assert.equal(parsed.replyTo?.value[0]?.address, 'replies@elsewhere.test');
    assert.equal(parsed.subject, 'Hello Ada');
    assert.equal(parsed.messageId, `<${item.email}@${domain.domain}>`);
    assert.ok(parsed.date instanceof Date);
    assert.equal(parsed.headers.get('mime-version'), '1.0');
    assert.equal(parsed.headers.get('x-campaign-ref'), 'abc-123');
    assert.match(String(parsed.html), /Hi Ada, your plan is pro\./);
    assert.match(String(parsed.text), /Hi Ada, your plan is pro\./);
    assert.match(message.raw.toString(), /Content-Type: multipart\/alternative/i);

    // The one-off value was used for the render only; the primitive was stored.
    const contact = await project.api.get(`/contacts/${item.contact.id}`);
    assert.equal(contact.body.data.name, 'Ada');
    assert.equal(contact.body.data.plan, undefined);
    assert.equal(contact.body.subscribed, false, 'a contact created by send is not subscribed');

    const resolver = new Resolver();
    resolver.setServers([dns.address]);
    const verified = await dkimVerify(message.raw, {
      resolver: async (name: string, type: string) => (type === 'TXT' ? resolver.resolveTxt(name) : resolver.resolve(name, type as 'A')),
    } as never);
    const [signature] = (verified as any).results;
    assert.equal(signature.status.result, 'pass', JSON.stringify(signature.status));
    assert.equal(signature.signingDomain, domain.domain);
    assert.equal(signature.selector, domain.selector);
    assert.equal(signature.algo, 'rsa-sha256');
    assert.equal(signature.format, 'relaxed/relaxed');

    const events = await project.api.get(`/events?contactId=${item.contact.id}`);
    const names = events.body.data.map((e: { name: string }) => e.name).sort();
    assert.deepEqual(names, ['email.delivered', 'email.sent']);
    for (const event of events.body.data) assert.equal(event.data.emailId, item.email);
  });

  test('template send: template supplies subject, body, from and reply-to; explicit fields override', async () => {
    const { project, from } = await setup();
    const template = await project.api.post('/templates', {
      name: 'Receipt',
      subject: 'Receipt for {{ item }}',
      body: '<p>You bought {{ item }}.</p>',
      from,
      fromName: 'Shop',
      replyTo: 'billing@elsewhere.test',
      type: 'TRANSACTIONAL',
    });
    assert.equal(template.status, 201, template.text);
    const a = uniqueEmail('tpl');
    const b = uniqueEmail('tpl');
    const res = await project.api.post('/v1/send', { to: a, template: template.body.id, data: { item: 'a lamp' } });
    assert.equal(res.status, 200, res.text);
    const overridden = await project.api.post('/v1/send', { to: b, template: template.body.id, subject: 'Custom {{ item }}', data: { item: 'a rug' } });
    assert.equal(overridden.status, 200, overridden.text);

    const first = (await waitForMessageTo(a)).parsed;
    assert.equal(first.subject, 'Receipt for a lamp');
    assert.match(String(first.html), /You bought a lamp\./);
    assert.equal(first.from?.value[0]?.name, 'Shop');
    assert.equal(first.from?.value[0]?.address, from);
    assert.equal(first.replyTo?.value[0]?.address, 'billing@elsewhere.test');
    const second = (await waitForMessageTo(b)).parsed;
    assert.equal(second.subject, 'Custom a rug');
    assert.match(String(second.html), /You bought a rug\./);
    const record = await waitForStatus(project.api, res.body.data.emails[0].email, ['DELIVERED']);
    assert.equal(record.templateId, template.body.id);
  });

  test('a record outlives its contact and its template: after deleting them it names neither', async () => {
    const { project, from } = await setup();
    const template = await project.api.post('/templates', {
      name: 'Welcome',
      subject: 'Welcome, {{ name }}',
      body: '<p>Glad you are here, {{ name }}.</p>',
      from,
      type: 'TRANSACTIONAL',
    });
    assert.equal(template.status, 201, template.text);
    const kept = uniqueEmail('kept');
    const res = await project.api.post('/v1/send', { to: [uniqueEmail('gone'), kept], template: template.body.id, data: { name: 'Ada' } });
    assert.equal(res.status, 200, res.text);
    const [gone, other] = res.body.data.emails;
    assert.equal((await project.api.delete(`/contacts/${gone.contact.id}`)).status, 204);
    const detached = await project.api.get(`/emails/${gone.email}`);
    assert.equal(detached.status, 200, detached.text);
    assert.equal(detached.body.contactId, null);
    assert.equal(detached.body.templateId, template.body.id);
    assert.equal((await project.api.get(`/emails/${other.email}`)).body.contactId, other.contact.id, 'the other record keeps its contact');

    assert.equal((await project.api.delete(`/templates/${template.body.id}`)).status, 204);
    for (const item of [gone, other]) {
      const record = await project.api.get(`/emails/${item.email}`);
      assert.equal(record.status, 200, record.text);
      assert.equal(record.body.templateId, null);
      assert.equal(record.body.subject, 'Welcome, Ada', 'the record keeps what was rendered');
    }
  });

  test('to as an object and as an array: one contact and one rendered record per recipient, in order', async () => {
    const { project, from } = await setup();
    const one = uniqueEmail('obj');
    const res = await project.api.post('/v1/send', { to: { name: 'Grace Hopper', email: one.toUpperCase() }, from, subject: 'Hi', body: '<p>Hi {{ email }}</p>' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.emails[0].contact.email, one);
    const message = await waitForMessageTo(one);
    assert.equal(message.parsed.to && !Array.isArray(message.parsed.to) ? message.parsed.to.value[0]?.name : '', 'Grace Hopper');

    const list = [uniqueEmail('arr'), { name: 'Second', email: uniqueEmail('arr') }, uniqueEmail('arr')];
    const many = await project.api.post('/v1/send', { to: list, from, subject: 'For {{ email }}', body: '<p>{{ email }}</p>', subscribed: true });
    assert.equal(many.status, 200, many.text);
    const addresses = list.map((entry) => (typeof entry === 'string' ? entry : entry.email));
    assert.deepEqual(
      many.body.data.emails.map((e: { contact: { email: string } }) => e.contact.email),
      addresses,
    );
    assert.equal(new Set(many.body.data.emails.map((e: { email: string }) => e.email)).size, 3);
    for (const address of addresses) {
      const received = await waitForMessageTo(address);
      assert.equal(received.parsed.subject, `For ${address}`);
    }
    const contact = await project.api.get(`/contacts/${many.body.data.emails[1].contact.id}`);
    assert.equal(contact.body.subscribed, true);
  });

  test('concurrent sends, several to one contact: each gets its own records rendered with its own data; one from an unverified domain is refused alone', async () => {
    const { project, from } = await setup();
    const shared = uniqueEmail('shared');
    const sends = Array.from({ length: 24 }, (_, i) => {
      const to = i % 3 === 0 ? [shared, uniqueEmail(`own${i}`)] : [uniqueEmail(`own${i}`)];
      return project.api.post('/v1/send', {
        to,
        from,
        subject: 'No. {{ n }}',
        body: '<p>{{ n }} {{ visits }}</p>',
        data: { n: { value: String(i), persistent: false }, visits: i },
      });
    });
    const strangers = Array.from({ length: 3 }, (_, i) => uniqueEmail(`refused${i}`));
    const refused = strangers.map((to) => project.api.post('/v1/send', { to, from: 'hi@not-verified.test', subject: 'Hi', body: '<p>Hi</p>' }));
    const [answers, refusals] = await Promise.all([Promise.all(sends), Promise.all(refused)]);
    for (const res of answers) assert.equal(res.status, 200, res.text);
    for (const res of refusals) assert.equal(res.body.error?.code, 'SENDER_DOMAIN_NOT_VERIFIED', res.text);
    for (const email of strangers) {
      const found = await project.api.get(`/contacts?search=${encodeURIComponent(email)}`);
      assert.equal(found.body.data.length, 0, 'a refused send writes no contact');
    }
    const sharedIds = new Set<string>();
    for (const [i, res] of answers.entries()) {
      const records = res.body.data.emails as Array<{ email: string; contact: { id: string; email: string } }>;
      assert.equal(records.length, i % 3 === 0 ? 2 : 1);
      for (const record of records) {
        if (record.contact.email === shared) sharedIds.add(record.contact.id);
        const stored = await project.api.get(`/emails/${record.email}`);
        assert.equal(stored.body.subject, `No. ${i}`, 'rendered with its own request’s one-off value');
      }
    }
    assert.equal(sharedIds.size, 1, 'one contact for the shared address');
    const contact = await project.api.get(`/contacts/${[...sharedIds][0]}`);
    assert.ok([0, 3, 6, 9, 12, 15, 18, 21].includes(contact.body.data.visits), 'the last write of some request that named it');
    assert.equal(contact.body.data.n, undefined, 'one-off values are not stored');
  });

  test('attachments arrive byte-identical; inline parts are multipart/related with their Content-ID', async () => {
    const { project, from } = await setup();
    const to = uniqueEmail('att');
    const pdf = randomBytes(300_000);
    const png = randomBytes(2_000);
    const res = await project.api.post('/v1/send', {
      to,
      from,
      subject: 'Files',
      body: '<p>Logo: <img src="cid:logo-1"></p>',
      attachments: [
        { filename: 'report.pdf', content: pdf.toString('base64'), contentType: 'application/pdf' },
        { filename: 'logo.png', content: png.toString('base64'), contentType: 'image/png', contentId: 'logo-1', disposition: 'inline' },
      ],
    });
    assert.equal(res.status, 200, res.text);
    const message = await waitForMessageTo(to);
    const report = message.parsed.attachments.find((a) => a.filename === 'report.pdf');
    const logo = message.parsed.attachments.find((a) => a.filename === 'logo.png');
    assert.ok(report && logo);
    assert.equal(report.contentType, 'application/pdf');
    assert.ok(Buffer.compare(report.content, pdf) === 0, 'the PDF bytes differ');
    assert.ok(Buffer.compare(logo.content, png) === 0, 'the PNG bytes differ');
    assert.equal(logo.contentId, '<logo-1>');
    assert.equal(report.contentDisposition, 'attachment');
    const raw = message.raw.toString();
    assert.match(raw, /Content-Type: multipart\/mixed/i);
    assert.match(raw, /Content-Type: multipart\/related/i);
    assert.match(raw, /Content-Type: multipart\/alternative/i);
  });

  test('GET /emails/{id}: 404 for an unknown id and for another project’s record; 422 for a non-UUID', async () => {
    const { project, from } = await setup();
    const other = await createProject(server.url);
    const res = await project.api.post('/v1/send', { to: uniqueEmail(), from, subject: 'x', body: '<p>x</p>' });
    assert.equal(res.status, 200, res.text);
    const id = res.body.data.emails[0].email;
    assert.equal((await other.api.get(`/emails/${id}`)).status, 404);
    assert.equal((await project.api.get('/emails/00000000-0000-4000-8000-000000000000')).status, 404);
    assert.equal((await project.api.get('/emails/nope')).status, 422);
    assert.equal((await project.dashboard.get(`/emails/${id}`)).status, 200);
  });
});
