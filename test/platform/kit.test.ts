import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { after, before, beforeEach, describe, test } from 'node:test';
import nodemailer from 'nodemailer';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// The test peers are real servers; these tests prove them with real clients, so a later failure
// in a delivery or domain test points at Mailroom and not at the kit.

describe('SMTP sink', () => {
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink({
      reply: (to, attempt) => {
        if (to.startsWith('bounce@')) return { code: 550 };
        if (to.startsWith('later@') && attempt === 1) return { code: 421, message: 'Busy, come back' };
        return undefined;
      },
    });
  });
  beforeEach(() => sink.reset());
  after(() => sink.close());

  const transport = () => nodemailer.createTransport({ url: sink.url } as never);

  test('a message sent with nodemailer arrives parsed, attachment byte-identical', async () => {
    const attachment = randomBytes(4096);
    const info = await transport().sendMail({
      from: '"Sender" <sender@example.test>',
      to: 'reader@example.test',
      subject: 'Hello from the kit',
      text: 'Plain body',
      html: '<p>Plain body</p>',
      attachments: [{ filename: 'blob.bin', content: attachment }],
    });
    assert.deepEqual(info.accepted, ['reader@example.test']);
    const [message] = await sink.waitForMessages(1);
    assert.deepEqual(message!.envelope, { from: 'sender@example.test', to: ['reader@example.test'] });
    assert.equal(message!.parsed.subject, 'Hello from the kit');
    assert.equal(message!.parsed.text?.trim(), 'Plain body');
    assert.equal(message!.parsed.from?.value[0]?.name, 'Sender');
    assert.equal(message!.parsed.attachments.length, 1);
    assert.equal(message!.parsed.attachments[0]!.filename, 'blob.bin');
    assert.ok(message!.parsed.attachments[0]!.content.equals(attachment));
    assert.match(message!.raw.toString(), /^Subject: Hello from the kit\r$/m);
  });

  test('a 550 reply makes the send reject with responseCode 550, and nothing is kept', async () => {
    await assert.rejects(
      transport().sendMail({ from: 'sender@example.test', to: 'bounce@example.test', subject: 'x', text: 'x' }),
      (error: { responseCode?: number }) => error.responseCode === 550,
    );
    assert.equal(sink.messages.length, 0);
    assert.equal(sink.attempts('bounce@example.test'), 1);
  });

  test('attempts are counted per address: 421 first, then accepted', async () => {
    const mail = { from: 'sender@example.test', to: 'later@example.test', subject: 'retry', text: 'x' };
    await assert.rejects(transport().sendMail(mail), (error: { responseCode?: number }) => error.responseCode === 421);
    await transport().sendMail(mail);
    assert.equal(sink.attempts('LATER@example.test'), 2);
    assert.equal((await sink.waitForMessages(1))[0]!.parsed.subject, 'retry');
  });

  test('waitForMessages rejects when the messages do not come', async () => {
    await assert.rejects(sink.waitForMessages(1, 100), /expected 1 message/);
  });

  test('with auth: true a client must log in; any credentials are accepted', async () => {
    const authSink = await startSmtpSink({ auth: true });
    try {
      const mail = { from: 'a@example.test', to: 'b@example.test', subject: 'auth', text: 'x' };
      await assert.rejects(nodemailer.createTransport({ url: authSink.url } as never).sendMail(mail));
      const url = `smtp://user:secret@127.0.0.1:${authSink.port}`;
      await nodemailer.createTransport({ url } as never).sendMail(mail);
      const [message] = await authSink.waitForMessages(1);
      assert.equal(message!.user, 'user');
    } finally {
      await authSink.close();
    }
  });
});

describe('DNS server', () => {
  let dns: DnsServer;
  let resolver: Resolver;
  before(async () => {
    dns = await startDnsServer();
    resolver = new Resolver({ timeout: 2000, tries: 1 });
    resolver.setServers([dns.address]);
  });
  beforeEach(() => dns.clear());
  after(() => dns.close());

  test('TXT records resolve; split strings join to the published value', async () => {
    const key = `v=DKIM1; k=rsa; p=${randomBytes(294).toString('base64')}`;
    dns.set('sel._domainkey.Example.test', 'TXT', [[key.slice(0, 255), key.slice(255)]]);
    dns.set('example.test', 'TXT', ['v=spf1 -all', 'other=1']);
    const dkim = await resolver.resolveTxt('SEL._domainkey.example.test');
    assert.equal(dkim.length, 1);
    assert.equal(dkim[0]!.length, 2);
    assert.equal(dkim[0]!.join(''), key);
    const txt = await resolver.resolveTxt('example.test');
    assert.deepEqual(txt.map((strings) => strings.join('')).sort(), ['other=1', 'v=spf1 -all']);
  });

  test('a TXT value over 255 bytes is split into strings, and a large answer comes over TCP', async () => {
    const long = 'x'.repeat(1500);
    dns.set('big.example.test', 'TXT', [long]);
    const [record] = await resolver.resolveTxt('big.example.test');
    assert.deepEqual(
      record!.map((s) => s.length),
      [255, 255, 255, 255, 255, 225],
    );
    assert.equal(record!.join(''), long);
    assert.deepEqual(new Set(dns.queries.map((q) => q.via)), new Set(['udp', 'tcp']), 'truncated over UDP, retried over TCP');
  });

  test('MX, A, AAAA, NS and CNAME resolve', async () => {
    dns.set('mail.test', 'MX', [
      { exchange: 'mx1.mail.test', priority: 10 },
      { exchange: 'mx2.mail.test', priority: 20 },
    ]);
    dns.set('mail.test', 'A', ['192.0.2.10']);
    dns.set('mail.test', 'AAAA', ['2001:db8::10']);
    dns.set('mail.test', 'NS', ['ns1.mail.test']);
    dns.set('www.mail.test', 'CNAME', ['mail.test']);
    const mx = await resolver.resolveMx('mail.test');
    assert.deepEqual(
      mx.sort((a, b) => a.priority - b.priority),
      [
        { exchange: 'mx1.mail.test', priority: 10 },
        { exchange: 'mx2.mail.test', priority: 20 },
      ],
    );
    assert.deepEqual(await resolver.resolve4('mail.test'), ['192.0.2.10']);
    assert.deepEqual(await resolver.resolve6('mail.test'), ['2001:db8::10']);
    assert.deepEqual(await resolver.resolveNs('mail.test'), ['ns1.mail.test']);
    assert.deepEqual(await resolver.resolveCname('www.mail.test'), ['mail.test']);
    assert.deepEqual(await resolver.resolve4('www.mail.test'), ['192.0.2.10']);
  });

  test('an unknown name is ENOTFOUND (NXDOMAIN); a known name without the type is ENODATA', async () => {
    dns.set('only-a.test', 'A', ['192.0.2.1']);
    await assert.rejects(resolver.resolveTxt('nowhere.test'), { code: 'ENOTFOUND' });
    await assert.rejects(resolver.resolveMx('only-a.test'), { code: 'ENODATA' });
  });

  test('remove makes a record, or a whole name, disappear', async () => {
    dns.set('gone.test', 'TXT', ['v=spf1 -all']);
    dns.set('gone.test', 'A', ['192.0.2.2']);
    assert.deepEqual(await resolver.resolveTxt('gone.test'), [['v=spf1 -all']]);
    dns.remove('gone.test', 'TXT');
    await assert.rejects(resolver.resolveTxt('gone.test'), { code: 'ENODATA' });
    assert.deepEqual(await resolver.resolve4('gone.test'), ['192.0.2.2']);
    dns.remove('gone.test');
    await assert.rejects(resolver.resolve4('gone.test'), { code: 'ENOTFOUND' });
  });

  test('queries are recorded, and an unresponsive name times out', async () => {
    dns.set('slow.test', 'A', ['192.0.2.3']);
    dns.unresponsive('slow.test');
    const quick = new Resolver({ timeout: 200, tries: 1 });
    quick.setServers([dns.address]);
    await assert.rejects(quick.resolve4('slow.test'), { code: 'ETIMEOUT' });
    assert.deepEqual(dns.queries.at(-1), { name: 'slow.test', type: 'A', via: 'udp' });
    dns.unresponsive('slow.test', false);
    assert.deepEqual(await quick.resolve4('slow.test'), ['192.0.2.3']);
  });
});
