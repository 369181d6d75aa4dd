import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { startServer } from '../../src/server.ts';
import { createAccount, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { client } from '../kit/http.ts';
import { receiver } from '../kit/mailauth.ts';
import { prepareEnvironment } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const SYSTEM_DOMAIN = 'notify.mailroom-ops.example.test';

describe('the server’s own mail is signed with SYSTEM_FROM’s key (docs/architecture.md, docs/decisions/sending.md)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
  });
  after(async () => {
    await sink.close();
    await dns.close();
  });

  test('the key is made at start-up and kept: GET /config shows the records, the same after a restart; a reset mail passes DKIM, SPF and DMARC', async () => {
    const environment = await prepareEnvironment({
      DNS_SERVERS: dns.address,
      SMTP_URL: sink.url,
      SYSTEM_FROM: `Mailroom Ops <no-reply@${SYSTEM_DOMAIN}>`,
      SPF_MECHANISMS: 'ip4:127.0.0.1',
    });
    try {
      let server = await startServer(loadConfig(environment.env));
      const first = (await client(server.url).get('/config')).body.systemMail;
      assert.equal(first.from, `no-reply@${SYSTEM_DOMAIN}`);
      assert.equal(first.signed, true);
      const [dkim, spf, dmarc] = first.records;
      assert.match(dkim.name, new RegExp(`^mr[0-9a-f]{10}\\._domainkey\\.${SYSTEM_DOMAIN.replaceAll('.', '\\.')}$`));
      assert.match(dkim.value, /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]{300,}=*$/);
      assert.deepEqual([spf.name, spf.value], [SYSTEM_DOMAIN, 'v=spf1 ip4:127.0.0.1 ~all']);
      assert.equal(dmarc.name, `_dmarc.${SYSTEM_DOMAIN}`);

      // A restart (and any other process on this database) signs with the same key.
      await server.close();
      server = await startServer(loadConfig(environment.env));
      assert.deepEqual((await client(server.url).get('/config')).body.systemMail, first);

      for (const record of first.records) dns.set(record.name, 'TXT', [record.value]);
      const account = await createAccount(server.url, uniqueEmail('system'));
      const asked = await client(server.url).post('/auth/request-password-reset', { email: account.email });
      assert.equal(asked.status, 202, asked.text);
      const [message] = await sink.waitForMessages(1, 20_000);
      assert.equal(message!.envelope.from, `no-reply@${SYSTEM_DOMAIN}`);
      assert.equal(message!.parsed.from?.value[0]?.name, 'Mailroom Ops');
      const verdicts = await receiver(dns)(message!.raw, { ip: '127.0.0.1', sender: message!.envelope.from });
      assert.deepEqual(
        { dkim: verdicts.dkim, d: verdicts.dkimDomain, spf: verdicts.spf, dmarc: verdicts.dmarc },
        { dkim: 'pass', d: SYSTEM_DOMAIN, spf: 'pass', dmarc: 'pass' },
        verdicts.detail,
      );
      await server.close();
    } finally {
      await environment.cleanup();
    }
  });

  test('without SYSTEM_FROM the mail is unsigned and GET /config says so', async () => {
    const environment = await prepareEnvironment({ SMTP_URL: sink.url, PUBLIC_URL: 'https://dash.example.test' });
    const server = await startServer(loadConfig(environment.env));
    try {
      assert.deepEqual((await client(server.url).get('/config')).body.systemMail, { from: 'no-reply@dash.example.test', signed: false, records: [] });
      sink.reset();
      const account = await createAccount(server.url, uniqueEmail('unsigned'));
      await client(server.url).post('/auth/request-password-reset', { email: account.email });
      const [message] = await sink.waitForMessages(1, 20_000);
      assert.equal(message!.envelope.from, 'no-reply@dash.example.test');
      assert.doesNotMatch(message!.raw.toString('binary'), /^DKIM-Signature:/im);
    } finally {
      await server.close();
      await environment.cleanup();
    }
  });
});
