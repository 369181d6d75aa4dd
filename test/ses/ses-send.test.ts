import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { type Client, client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { FakeSns, sesNotification } from '../kit/sns.ts';

/** End to end: a message sent through /v1/send, then SES's feedback about it (docs/decisions/sending.md). */
describe('POST /webhooks/ses after POST /v1/send', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let server: TestServer;
  let sns: FakeSns;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url });
    sns = new FakeSns();
    server.deps.sns.useTransport(sns.transport);
  });
  after(async () => {
    await server.close();
    await sink.close();
    await dns.close();
  });

  async function waitForStatus(api: Client, id: string, statuses: string[]) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const res = await api.get(`/emails/${id}`);
      assert.equal(res.status, 200, res.text);
      if (statuses.includes(res.body.status)) return res.body;
      if (Date.now() > deadline) assert.fail(`email ${id} stayed ${res.body.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function messageIdReceivedBy(address: string) {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const message = sink.messages.find((m) => m.envelope.to.includes(address));
      if (message?.parsed.messageId) return message.parsed.messageId;
      if (Date.now() > deadline) assert.fail(`no message to ${address}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const post = (body: unknown) => client(server.url).post('/webhooks/ses', undefined, { rawBody: JSON.stringify(body), headers: { 'content-type': 'text/plain; charset=UTF-8' } });

  test('a complaint about a sent message marks its record, unsubscribes the contact, and the next send is SUPPRESSED', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const to = uniqueEmail('ses');
    const send = () => project.api.post('/v1/send', { to, from: `news@${domain.domain}`, subject: 'Hello', body: '<p>Hi</p>', subscribed: true });
    const sent = await send();
    assert.equal(sent.status, 200, sent.text);
    const [{ email: emailId, contact }] = sent.body.data.emails;
    await waitForStatus(project.api, emailId, ['DELIVERED']);
    // The Message-ID header as it left, which SES echoes in its notification.
    const messageId = await messageIdReceivedBy(to);

    const res = await post(sns.notification(sesNotification('Complaint', messageId, to)));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.result, 'applied');
    const record = await waitForStatus(project.api, emailId, ['COMPLAINED']);
    assert.ok(record.complainedAt);
    assert.equal((await project.api.get(`/contacts/${contact.id}`)).body.subscribed, false);
    const events = await project.api.get(`/events?contactId=${contact.id}&name=email.complained`);
    assert.deepEqual(
      events.body.data.map((e: { emailId: string }) => e.emailId),
      [emailId],
    );

    const again = await send();
    assert.equal(again.status, 200, again.text);
    await waitForStatus(project.api, again.body.data.emails[0].email, ['SUPPRESSED']);
  });
});
