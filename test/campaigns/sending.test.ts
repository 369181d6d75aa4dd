import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { campaignBody, countByRecipient, createCampaign, makeContacts, seedContacts, until, waitForCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender as newProjectWithSender } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SinkMessage, type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const PUBLIC_URL = 'https://mail.example.test';
const BOUNCING = 'bounce-me@recipients.example.test';

describe('campaign delivery through a real SMTP sink (docs/decisions/sending.md, docs/decisions/campaigns.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink({
      reply: (to, attempt) => (to.toLowerCase() === BOUNCING ? { code: 550 } : to.startsWith('retry-') && attempt === 1 ? { code: 421 } : undefined),
    });
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, PUBLIC_URL }));
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  const projectWithSender = () => newProjectWithSender(server.url, dns, 'news');
  const messagesOf = (campaignFrom: string) => sink.messages.filter((m) => m.envelope.from === campaignFrom);

  test('2,000 contacts: every subscribed contact gets exactly one personalised message, no unsubscribed contact gets one; counters follow', async () => {
    const { project, from } = await projectWithSender();
    const contacts = makeContacts('bulk', 2000, 5); // 400 unsubscribed
    await seedContacts(project.api, contacts);
    const campaign = await createCampaign(project.api, campaignBody(from));
    assert.equal(campaign.totalRecipients, 1600);
    const sent = await project.api.post(`/campaigns/${campaign.id}/send`);
    assert.equal(sent.status, 200, sent.text);

    const done = await waitForCampaign(project.api, campaign.id, ['SENT'], 180_000);
    const messages = messagesOf(from);
    const received = countByRecipient(messages.map((m) => m.envelope.to));
    for (const contact of contacts) {
      assert.equal(received.get(contact.email) ?? 0, contact.subscribed ? 1 : 0, `${contact.email} (subscribed: ${contact.subscribed})`);
    }
    assert.equal(messages.length, 1600);
    const sample = messages.find((m) => m.envelope.to[0] === 'bulk-7@recipients.example.test')!;
    assert.equal(sample.parsed.subject, 'Hello Name7');
    assert.match(String(sample.parsed.html), /Hi Name7,/);
    assert.match(sample.raw.toString(), /\r\nList-Unsubscribe:\s*<https:\/\/mail\.example\.test\/[^>]+>\r\n/, 'MARKETING mail carries List-Unsubscribe');
    assert.ok(String(sample.parsed.html).includes(`${PUBLIC_URL}/t/o/`), 'tracked');
    assert.deepEqual([done.totalRecipients, done.sentCount, done.deliveredCount, done.bouncedCount], [1600, 1600, 1600, 0]);

    const messageId = String(sample.parsed.messageId).replace(/^<|@.*$/g, '');
    const record = await project.api.get(`/emails/${messageId}`);
    assert.equal(record.status, 200, record.text);
    assert.deepEqual([record.body.status, record.body.sourceType, record.body.campaignId, record.body.subject], ['DELIVERED', 'CAMPAIGN', campaign.id, 'Hello Name7']);
  });

  test('counters follow the records: an open, a click and a hard bounce; stats break every outcome down', async () => {
    const { project, from } = await projectWithSender();
    await seedContacts(project.api, [...makeContacts('count', 3), { email: BOUNCING, subscribed: true }]);
    await project.api.post('/v1/send', { to: 'suppress-me@recipients.example.test', from, subject: 'x', body: 'x' });
    const campaign = await createCampaign(project.api, campaignBody(from));
    await project.api.post(`/campaigns/${campaign.id}/send`);
    const done = await waitForCampaign(project.api, campaign.id, ['SENT']);
    assert.deepEqual([done.totalRecipients, done.sentCount, done.deliveredCount, done.bouncedCount, done.openedCount, done.clickedCount], [4, 4, 3, 1, 0, 0]);

    const message = messagesOf(from).find((m) => m.envelope.to[0] === 'count-0@recipients.example.test')!;
    const html = String(message.parsed.html);
    const web = client(server.url);
    const pixel = /src="https:\/\/mail\.example\.test(\/t\/o\/[^"]+)"/.exec(html)![1]!;
    const click = /href="https:\/\/mail\.example\.test(\/t\/c\/[^"]+)"/.exec(html)![1]!;
    assert.equal((await web.get(pixel)).status, 200);
    let counted = (await project.api.get(`/campaigns/${campaign.id}`)).body.data;
    assert.deepEqual([counted.openedCount, counted.clickedCount], [1, 0]);
    assert.equal((await web.get(click)).status, 302);
    counted = (await project.api.get(`/campaigns/${campaign.id}`)).body.data;
    assert.deepEqual([counted.openedCount, counted.clickedCount], [1, 1]);

    const stats = await project.api.get(`/campaigns/${campaign.id}/stats`);
    assert.equal(stats.status, 200, stats.text);
    assert.deepEqual(stats.body.data, {
      totalRecipients: 4,
      queuedCount: 0,
      sentCount: 4,
      deliveredCount: 3,
      openedCount: 1,
      clickedCount: 1,
      bouncedCount: 1,
      complainedCount: 0,
      failedCount: 0,
      suppressedCount: 0,
      deliveryRate: 75,
      bounceRate: 25,
      openRate: 33.33,
      clickRate: 33.33,
      // Nothing waits once every record is settled (docs/streams.md).
      warmupWaiting: { count: 0, until: null },
      throttledProviders: [],
    });
  });

  test('a record retried after a temporary failure (421) is rendered again and delivered; the campaign waits for it', async () => {
    const { project, from } = await projectWithSender();
    await seedContacts(project.api, [{ email: 'retry-1@recipients.example.test', subscribed: true, name: 'Rita' }, ...makeContacts('noretry', 2)]);
    const campaign = await createCampaign(project.api, campaignBody(from));
    await project.api.post(`/campaigns/${campaign.id}/send`);
    const done = await waitForCampaign(project.api, campaign.id, ['SENT']);
    assert.equal(sink.attempts('retry-1@recipients.example.test'), 2);
    const message = messagesOf(from).find((m) => m.envelope.to[0] === 'retry-1@recipients.example.test')!;
    assert.equal(message.parsed.subject, 'Hello Rita');
    assert.match(String(message.parsed.html), /Hi Rita,/);
    assert.deepEqual([done.sentCount, done.deliveredCount], [3, 3]);
  });

  test('a suppressed address gets a SUPPRESSED record and no message; TRANSACTIONAL campaigns reach unsubscribed contacts', async () => {
    const { project, from } = await projectWithSender();
    await seedContacts(project.api, [
      { email: 'keep@recipients.example.test', subscribed: true },
      { email: 'off@recipients.example.test', subscribed: false },
    ]);
    // A hard bounce puts the address on the suppression list (and unsubscribes the contact).
    const bounced = await project.api.post('/v1/send', { to: BOUNCING, from, subject: 'x', body: 'x', subscribed: true });
    await until('the bounce', async () => (await project.api.get(`/emails/${bounced.body.data.emails[0].email}`)).body.status === 'BOUNCED');

    const campaign = await createCampaign(project.api, campaignBody(from, { type: 'TRANSACTIONAL' }));
    assert.equal(campaign.totalRecipients, 2, 'the suppressed address is not counted: it will not be mailed');
    await project.api.post(`/campaigns/${campaign.id}/send`);
    await waitForCampaign(project.api, campaign.id, ['SENT']);
    const received = countByRecipient(
      messagesOf(from)
        .filter((m) => m.parsed.subject?.startsWith('Hello'))
        .map((m) => m.envelope.to),
    );
    assert.deepEqual([received.get('keep@recipients.example.test'), received.get('off@recipients.example.test'), received.get(BOUNCING)], [1, 1, undefined]);
    const stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    assert.deepEqual([stats.totalRecipients, stats.sentCount, stats.suppressedCount], [2, 2, 1], 'sent of total is the progress: it reaches 100%');
    const transactional = messagesOf(from).find((m) => m.envelope.to[0] === 'off@recipients.example.test')!;
    assert.doesNotMatch(transactional.raw.toString(), /List-Unsubscribe/i, 'no List-Unsubscribe on TRANSACTIONAL mail');
  });

  test('POST /campaigns/{id}/test sends one rendered copy marked [Test] and changes no counter and no state', async () => {
    const { project, from } = await projectWithSender();
    await seedContacts(project.api, [{ email: 'tester@recipients.example.test', subscribed: true, name: 'Tess' }]);
    const campaign = await createCampaign(project.api, campaignBody(from));
    const res = await project.api.post(`/campaigns/${campaign.id}/test`, { email: 'Tester@recipients.example.test' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    let message: SinkMessage | undefined;
    await until('the test message', () => !!(message = messagesOf(from).find((m) => m.envelope.to[0] === 'tester@recipients.example.test')));
    assert.equal(message!.parsed.subject, '[Test] Hello Tess', 'rendered with the contact of that address');
    const stranger = await project.api.post(`/campaigns/${campaign.id}/test`, { email: 'someone@elsewhere.example.test' });
    assert.equal(stranger.status, 200, stranger.text);
    await until('the second test', () => messagesOf(from).some((m) => m.parsed.subject === '[Test] Hello friend'));

    const after = (await project.api.get(`/campaigns/${campaign.id}`)).body.data;
    assert.deepEqual(after, campaign, 'no counter, no state, not even updatedAt');
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/test`, { email: 'nope' })).status, 422);
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/test`, {})).status, 422);
  });
});
