import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// Bounce classes over real SMTP (docs/decisions/sending.md, RFC 3463): the sink answers each recipient as a
// receiving server would, and the records, events, suppression list and retries are read back
// through the API.

const BODY = `<h1>Your March statement</h1>
<p>Hello {{ email }}, here is what happened on your account this month. Payments are listed by the
day they settled, not the day they were made, so a card payment from the 31st may appear next month.</p>
<ul><li>Three invoices paid</li><li>One refund issued (order #4471)</li><li>No disputes open</li></ul>
<table><tr><th>Date</th><th>Description</th><th>Amount</th></tr>
<tr><td>2026-03-02</td><td>Subscription, annual plan</td><td>€ 480.00</td></tr>
<tr><td>2026-03-17</td><td>ご注文ありがとうございます (refund)</td><td>−€ 35.50</td></tr></table>
<p>Questions? Reply to this message or read <a href="https://example.com/help/statements">how statements work</a>.</p>`;

type Api = { get: (path: string) => Promise<{ status: number; body: any; text: string }> };

const eventsOf = async (api: Api, contactId: string) => (await api.get(`/events?contactId=${contactId}&limit=100`)).body.data as Array<{ name: string; data: any }>;

describe('bounce classes over SMTP (docs/decisions/sending.md)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let server: TestServer;
  /** address → what the sink answers to its RCPT TO on each attempt (undefined: accept). */
  const rcpt = new Map<string, (attempt: number) => { code: number; message?: string } | undefined>();
  const data = new Map<string, { code: number; message: string }>();
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({
      reply: (to, attempt) => rcpt.get(to.toLowerCase())?.(attempt),
      dataReply: (to) => data.get(to.toLowerCase()),
    });
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url });
  });
  after(async () => {
    await server.close();
    await sink.close();
    await dns.close();
  });

  /** Sends to a new address that the sink answers with `reply` (RCPT TO) and `dataAnswer` (end of DATA). */
  async function send(label: string, reply?: (attempt: number) => { code: number; message?: string } | undefined, dataAnswer?: { code: number; message: string }) {
    const { project, from } = await projectWithSender(server.url, dns);
    const to = uniqueEmail(label);
    if (reply) rcpt.set(to, reply);
    if (dataAnswer) data.set(to, dataAnswer);
    const res = await project.api.post('/v1/send', { to, from, subject: 'Your March statement', body: BODY, subscribed: true });
    assert.equal(res.status, 200, res.text);
    const [item] = res.body.data.emails;
    return { project, from, to, emailId: item.email as string, contactId: item.contact.id as string };
  }

  /** Sends again to `to` and says whether the message went out. */
  async function sendsAgain(project: { api: any }, from: string, to: string): Promise<string> {
    const res = await project.api.post('/v1/send', { to, from, subject: 'Again', body: BODY });
    assert.equal(res.status, 200, res.text);
    return (await waitForStatus(project.api, res.body.data.emails[0].email, ['DELIVERED', 'SUPPRESSED', 'FAILED', 'BOUNCED'], 30_000)).status;
  }

  test('550 5.1.1 (user unknown) → BOUNCED hard: one attempt, contact unsubscribed, address suppressed', async () => {
    const sent = await send('unknown', () => ({ code: 550, message: `5.1.1 <${sent.to}>: Recipient address rejected: User unknown in virtual mailbox table` }));
    const record = await waitForStatus(sent.project.api, sent.emailId, ['BOUNCED', 'DELIVERED'], 20_000);
    assert.equal(record.status, 'BOUNCED');
    assert.ok(record.bouncedAt);
    assert.match(record.error, /550 5\.1\.1 .*User unknown/);
    assert.equal(sink.attempts(sent.to), 1, 'a hard bounce is not retried');
    const events = await eventsOf(sent.project.api, sent.contactId);
    const bounced = events.filter((e) => e.name === 'email.bounced');
    assert.equal(bounced.length, 1);
    assert.equal(bounced[0]!.data.bounceType, 'hard');
    assert.equal(bounced[0]!.data.emailId, sent.emailId);
    assert.ok(events.some((e) => e.name === 'contact.unsubscribed'));
    assert.equal((await sent.project.api.get(`/contacts/${sent.contactId}`)).body.subscribed, false);
    assert.equal(await sendsAgain(sent.project, sent.from, sent.to), 'SUPPRESSED');
    assert.equal(sink.attempts(sent.to), 1, 'nothing more was attempted to the suppressed address');
  });

  test('a bare 550 whose text says the user is unknown (no enhanced code) is a hard bounce too', async () => {
    const sent = await send('bare', () => ({ code: 550, message: 'No such user here' }));
    const record = await waitForStatus(sent.project.api, sent.emailId, ['BOUNCED', 'FAILED', 'DELIVERED'], 20_000);
    assert.equal(record.status, 'BOUNCED');
    assert.equal((await eventsOf(sent.project.api, sent.contactId)).find((e) => e.name === 'email.bounced')?.data.bounceType, 'hard');
  });

  test('552 5.2.2 (mailbox full) → soft: retried with backoff, announced once, never suppressed, delivered when there is room', async () => {
    const sent = await send('full', (attempt: number) => (attempt <= 2 ? { code: 552, message: "5.2.2 The recipient's inbox is out of storage space." } : undefined));
    const record = await waitForStatus(sent.project.api, sent.emailId, ['DELIVERED', 'BOUNCED', 'FAILED'], 40_000);
    assert.equal(record.status, 'DELIVERED');
    assert.equal(record.bouncedAt, null);
    assert.equal(record.error, null);
    assert.equal(sink.attempts(sent.to), 3, 'two soft bounces, then accepted on the third attempt');
    const received = sink.messages.filter((m) => m.envelope.to.includes(sent.to));
    assert.equal(received.length, 1);
    const events = await eventsOf(sent.project.api, sent.contactId);
    const bounced = events.filter((e) => e.name === 'email.bounced');
    assert.equal(bounced.length, 1, 'the series of soft bounces is announced once');
    assert.equal(bounced[0]!.data.bounceType, 'soft');
    assert.equal(bounced[0]!.data.emailId, sent.emailId);
    assert.match(bounced[0]!.data.error, /552 5\.2\.2/);
    assert.ok(events.some((e) => e.name === 'email.delivered'));
    assert.ok(!events.some((e) => e.name === 'contact.unsubscribed'));
    assert.equal((await sent.project.api.get(`/contacts/${sent.contactId}`)).body.subscribed, true);
    assert.equal(await sendsAgain(sent.project, sent.from, sent.to), 'DELIVERED', 'the address was not suppressed');
  });

  test('soft bounces until the 24 hours are up → FAILED with the last answer, still not suppressed', async () => {
    const sent = await send('stillfull', () => ({ code: 552, message: '5.2.2 Mailbox full' }));
    const deadline = Date.now() + 20_000;
    while (sink.attempts(sent.to) < 1) {
      assert.ok(Date.now() < deadline, 'no first attempt');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const waiting = await waitForStatus(sent.project.api, sent.emailId, ['QUEUED'], 10_000);
    assert.match(waiting.error, /^Soft bounce, retrying: SMTP 552/);
    // A day passes: the record was made 25 hours ago (the time bound: Citus refuses a stable
    // expression over a column in an UPDATE).
    await server.deps.db.query(`UPDATE emails SET created_at = $3 WHERE project_id = $1 AND id = $2`, [sent.project.id, sent.emailId, new Date(Date.now() - 25 * 3_600_000)]);
    const record = await waitForStatus(sent.project.api, sent.emailId, ['FAILED', 'BOUNCED', 'DELIVERED'], 30_000);
    assert.equal(record.status, 'FAILED');
    assert.match(record.error, /^Gave up after 24 hours of temporary failures; last: Soft bounce, retrying: SMTP 552: 552 5\.2\.2 Mailbox full/);
    assert.equal(sink.attempts(sent.to), 2);
    const events = await eventsOf(sent.project.api, sent.contactId);
    assert.deepEqual(
      events.filter((e) => e.name === 'email.bounced').map((e) => e.data.bounceType),
      ['soft'],
    );
    assert.equal(events.filter((e) => e.name === 'email.failed').length, 1);
    assert.equal((await sent.project.api.get(`/contacts/${sent.contactId}`)).body.subscribed, true);
    rcpt.delete(sent.to);
    assert.equal(await sendsAgain(sent.project, sent.from, sent.to), 'DELIVERED');
  });

  test('550 5.7.1 (policy block) → FAILED with the reason, no bounce, no suppression; the address can be mailed later', async () => {
    const sent = await send('blocked', () => ({ code: 550, message: '5.7.1 Service unavailable, Client host [127.0.0.1] blocked using Spamhaus' }));
    const record = await waitForStatus(sent.project.api, sent.emailId, ['FAILED', 'BOUNCED', 'DELIVERED'], 20_000);
    assert.equal(record.status, 'FAILED');
    assert.equal(record.bouncedAt, null);
    assert.match(record.error, /550 5\.7\.1 Service unavailable.*blocked using Spamhaus/);
    assert.equal(sink.attempts(sent.to), 1, 'a permanent refusal is not retried');
    const events = await eventsOf(sent.project.api, sent.contactId);
    assert.ok(!events.some((e) => e.name === 'email.bounced'));
    const failed = events.filter((e) => e.name === 'email.failed');
    assert.equal(failed.length, 1);
    assert.match(failed[0]!.data.error, /5\.7\.1/);
    assert.equal((await sent.project.api.get(`/contacts/${sent.contactId}`)).body.subscribed, true);
    rcpt.delete(sent.to);
    assert.equal(await sendsAgain(sent.project, sent.from, sent.to), 'DELIVERED');
  });

  test('554 5.7.1 after DATA (content refused as spam) → FAILED, not a bounce', async () => {
    const sent = await send('spam', undefined, { code: 554, message: '5.7.1 Message rejected as spam by Content Filtering' });
    const record = await waitForStatus(sent.project.api, sent.emailId, ['FAILED', 'BOUNCED', 'DELIVERED'], 20_000);
    assert.equal(record.status, 'FAILED');
    assert.match(record.error, /554 5\.7\.1 Message rejected as spam/);
    assert.ok(!(await eventsOf(sent.project.api, sent.contactId)).some((e) => e.name === 'email.bounced'));
    assert.equal(sink.messages.filter((m) => m.envelope.to.includes(sent.to)).length, 0);
  });

  test('421 → retried without a bounce event; delivered on the next attempt', async () => {
    const sent = await send('busy', (attempt: number) => (attempt === 1 ? { code: 421, message: '4.7.0 Try again later, closing connection.' } : undefined));
    const record = await waitForStatus(sent.project.api, sent.emailId, ['DELIVERED', 'FAILED', 'BOUNCED'], 30_000);
    assert.equal(record.status, 'DELIVERED');
    assert.equal(sink.attempts(sent.to), 2);
    const names = (await eventsOf(sent.project.api, sent.contactId)).map((e) => e.name).sort();
    assert.deepEqual(names, ['email.delivered', 'email.sent']);
  });
});
