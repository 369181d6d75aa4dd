import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { campaignBody, createCampaign, makeContacts, seedContacts, until } from '../kit/campaigns.ts';
import { type CountingRelay, startCountingRelay } from '../kit/counting-relay.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

// docs/streams.md: a transactional message's attempt starts within 5 s of acceptance however much
// marketing mail is queued, and campaigns keep the rest of the capacity.

const CAMPAIGN_SIZE = 3_000;
const SENDS = 20;

const RESET_BODY = [
  '<p>Hello Ada,</p>',
  '<p>Someone asked to reset the password of your account. If it was you, choose a new one below; the link works once, for one hour.</p>',
  '<ul><li>Requested from: Lisbon, Portugal</li><li>Browser: Firefox on Linux</li></ul>',
  '<p>Если это были не вы, просто проигнорируйте это письмо. 如果不是您本人操作，请忽略此邮件。</p>',
].join('\n');

describe('reserved capacity: transactional mail does not wait behind a campaign (docs/streams.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let relay: CountingRelay;
  before(async () => {
    // A relay answering each message after 40 ms: the campaign takes seconds to drain.
    relay = await startCountingRelay({ delayMs: 40 });
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: relay.url }));
  });
  after(async () => {
    await server?.close();
    await relay?.close();
  });

  test(`${SENDS} /v1/send made while a ${CAMPAIGN_SIZE}-recipient campaign drains each arrive before the campaign ends, within 5 s of acceptance`, async (t) => {
    const { project, from } = await projectWithSender(server.url, dns);
    const contacts = makeContacts('drain', CAMPAIGN_SIZE);
    await seedContacts(project.api, contacts);
    const campaignAddresses = new Set(contacts.map((c) => c.email));
    const campaign = await createCampaign(project.api, campaignBody(from, { subject: 'Spring collection, {{name}}' }));
    const started = await project.api.post(`/campaigns/${campaign.id}/send`);
    assert.equal(started.status, 200, started.text);
    const campaignArrived = () => relay.messages.filter((m) => campaignAddresses.has(m.to[0]!)).length;
    // The sends start once a tenth of the campaign has gone out: the rest of it is queued before them.
    await until('a tenth of the campaign', () => campaignArrived() >= CAMPAIGN_SIZE / 10, 120_000);

    const sends: Array<{ to: string; emailId: string; acceptedAt: number }> = [];
    for (let i = 0; i < SENDS; i++) {
      const to = `reset-${i}@customers.example.test`;
      const res = await project.api.post('/v1/send', { to, from, subject: `Reset your password (${i + 1})`, body: RESET_BODY });
      assert.equal(res.status, 200, res.text);
      sends.push({ to, emailId: res.body.data.emails[0].email, acceptedAt: Date.now() });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const queuedWhenLastSent = CAMPAIGN_SIZE - campaignArrived();
    await until('the whole campaign', () => new Set(relay.messages.filter((m) => campaignAddresses.has(m.to[0]!)).map((m) => m.to[0])).size === CAMPAIGN_SIZE, 300_000);
    const campaignEnd = Math.max(...relay.messages.filter((m) => campaignAddresses.has(m.to[0]!)).map((m) => m.receivedAt));

    assert.ok(queuedWhenLastSent > CAMPAIGN_SIZE / 4, `the campaign was still draining (${queuedWhenLastSent} to go) when the last send was made`);
    const latencies: number[] = [];
    for (const send of sends) {
      const arrived = relay.messages.filter((m) => m.to[0] === send.to);
      assert.equal(arrived.length, 1, `${send.to} arrived once`);
      const record = await waitForStatus(project.api, send.emailId, ['DELIVERED']);
      assert.equal(record.stream, 'transactional');
      assert.ok(arrived[0]!.receivedAt < campaignEnd, `${send.to} arrived before the campaign's last message`);
      const latency = arrived[0]!.receivedAt - send.acceptedAt;
      latencies.push(latency);
      assert.ok(latency < 5_000, `${send.to} arrived ${latency} ms after acceptance`);
    }
    // No campaign message was lost or sent twice while the transactional lane ran beside it.
    const counts = relay.countByRecipient();
    assert.ok(
      contacts.every((c) => counts.get(c.email) === 1),
      'every campaign recipient got one message',
    );
    const recipients = await project.api.get(`/campaigns/${campaign.id}/recipients?limit=1`);
    assert.equal(recipients.status, 200, recipients.text);
    const record = await project.api.get(`/emails/${recipients.body.data[0].emailId}`);
    assert.equal(record.body.stream, 'marketing');
    t.diagnostic(`transactional latency: max ${Math.max(...latencies)} ms; ${queuedWhenLastSent} campaign messages still queued after the last send`);
  });
});
