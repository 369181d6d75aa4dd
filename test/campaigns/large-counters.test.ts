import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { campaignBody, createCampaign, makeContacts, seedContacts, until } from '../kit/campaigns.ts';
import { type CountingRelay, startCountingRelay } from '../kit/counting-relay.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const PUBLIC_URL = 'https://mail.example.test';
// Campaigns of this many recipients or more have their counters reused for a few seconds
// (docs/decisions/campaigns.md, "Counters at scale"); 10,000 by default, small here.
const EXACT_BELOW = 20;

const NEWSLETTER = `<h1>Notes from the spring release, {{name ?? "friend"}}</h1>
<p>This quarter we rebuilt the scheduler so that long jobs no longer hold a connection while they wait, and we moved the audit log to its own table, which made the activity page load in a third of the time it used to take on large accounts.</p>
<ul><li>Segments count live as you build them</li><li>Campaigns show progress while they send</li><li>Workflows have versions and a dry run</li></ul>
<table><tr><th>Plan</th><th>Seats</th></tr><tr><td>Team</td><td>10</td></tr><tr><td>Business</td><td>50</td></tr></table>
<p>Спасибо, что остаетесь с нами. 引き続きよろしくお願いいたします。 <a href="https://example.com/changelog">Read the whole changelog</a></p>`;

describe('counters of a large campaign (docs/decisions/campaigns.md, "Counters at scale")', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, PUBLIC_URL, CAMPAIGN_COUNTS_EXACT_BELOW: String(EXACT_BELOW) }));
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  test('progress read while sending never goes back nor past the total; the first read that says SENT counts every record sent; the list agrees', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    await seedContacts(project.api, makeContacts('progress', 150));
    const campaign = await createCampaign(project.api, campaignBody(from, { subject: 'Spring release notes, {{name}}', body: NEWSLETTER }));
    assert.equal(campaign.totalRecipients, 150);
    assert.ok(campaign.totalRecipients >= EXACT_BELOW, 'a campaign counted the large way');
    const sent = await project.api.post(`/campaigns/${campaign.id}/send`);
    assert.equal(sent.status, 200, sent.text);

    const seen: number[] = [];
    let read: any;
    const deadline = Date.now() + 120_000;
    for (;;) {
      // Two readers at once, as two open progress pages (they share counts).
      const [a, b] = await Promise.all([project.api.get(`/campaigns/${campaign.id}`), project.api.get(`/campaigns/${campaign.id}`)]);
      assert.equal(a.status, 200, a.text);
      read = a.body.data;
      seen.push(read.sentCount);
      for (const one of [a.body.data, b.body.data]) assert.ok(one.sentCount <= 150, `sentCount ${one.sentCount} above the total`);
      if (read.status === 'SENT') break;
      assert.equal(read.status, 'SENDING');
      assert.ok(Date.now() < deadline, `still SENDING after 120 s (${read.sentCount} sent)`);
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]!, `progress went back: ${seen.join(', ')}`);
    assert.deepEqual([read.totalRecipients, read.sentCount, read.deliveredCount], [150, 150, 150], 'the first SENT read');
    assert.equal(sink.messages.filter((m) => m.envelope.from === from).length, 150);

    const listed = (await project.api.get('/campaigns')).body.data.find((c: { id: string }) => c.id === campaign.id);
    assert.deepEqual([listed.status, listed.sentCount, listed.deliveredCount], ['SENT', 150, 150]);
    const stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    assert.deepEqual([stats.queuedCount, stats.sentCount, stats.failedCount, stats.suppressedCount], [0, 150, 0, 0]);
  });

  test('an open reaches a large campaign’s counters within seconds and a small one’s at once, and neither project sees the other’s', async () => {
    const large = await projectWithSender(server.url, dns, 'large');
    const small = await projectWithSender(server.url, dns, 'small');
    await seedContacts(large.project.api, makeContacts('wide', 40));
    await seedContacts(small.project.api, makeContacts('narrow', 3));
    const campaigns = [];
    for (const { project, from } of [large, small]) {
      const campaign = await createCampaign(project.api, campaignBody(from, { subject: 'Spring release notes, {{name}}', body: NEWSLETTER }));
      assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
      campaigns.push(campaign);
    }
    const [wide, narrow] = campaigns;
    for (const [{ project }, campaign, total] of [
      [large, wide, 40],
      [small, narrow, 3],
    ] as const) {
      await until(`${campaign.name} SENT`, async () => (await project.api.get(`/campaigns/${campaign.id}`)).body.data.status === 'SENT', 120_000);
      const done = (await project.api.get(`/campaigns/${campaign.id}`)).body.data;
      assert.deepEqual([done.sentCount, done.openedCount], [total, 0]);
      // The other project cannot read it, counted or not.
      const other = project === large.project ? small.project : large.project;
      assert.equal((await other.api.get(`/campaigns/${campaign.id}`)).status, 404);
    }

    const web = client(server.url);
    const pixelOf = (from: string) => {
      const html = String(sink.messages.find((m) => m.envelope.from === from)!.parsed.html);
      return /src="https:\/\/mail\.example\.test(\/t\/o\/[^"]+)"/.exec(html)![1]!;
    };
    assert.equal((await web.get(pixelOf(small.from))).status, 200);
    const smallNow = (await small.project.api.get(`/campaigns/${narrow.id}`)).body.data;
    assert.equal(smallNow.openedCount, 1, 'a small campaign is counted on every read');

    assert.equal((await web.get(pixelOf(large.from))).status, 200);
    let opened = 0;
    await until('the open in the large campaign’s counters', async () => (opened = (await large.project.api.get(`/campaigns/${wide.id}`)).body.data.openedCount) === 1, 15_000);
    const stats = (await large.project.api.get(`/campaigns/${wide.id}/stats`)).body.data;
    assert.deepEqual([opened, stats.openedCount, stats.sentCount, stats.deliveredCount], [1, 1, 40, 40]);
  });
});

describe('counters of a large campaign cancelled mid-send', () => {
  let server: TestServer;
  let dns: DnsServer;
  let relay: CountingRelay;
  before(async () => {
    // A slow relay: the campaign is still sending when it is cancelled.
    relay = await startCountingRelay({ delayMs: 400 });
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: relay.url, CAMPAIGN_COUNTS_EXACT_BELOW: String(EXACT_BELOW) }));
  });
  after(async () => {
    await server?.close();
    await relay?.close();
  });

  test('the first read after the cancel counts the records it failed, though progress was counted a moment before', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    await seedContacts(project.api, makeContacts('cancelled', 400));
    const campaign = await createCampaign(project.api, campaignBody(from, { subject: 'Spring release notes, {{name}}', body: NEWSLETTER }));
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
    let stats: any;
    await until(
      'some of the campaign sent, most still queued',
      async () => {
        stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
        return stats.sentCount > 0;
      },
      60_000,
    );
    assert.ok(stats.queuedCount > 0 && stats.failedCount === 0, JSON.stringify(stats));

    const cancelled = await project.api.post(`/campaigns/${campaign.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    const read = (await project.api.get(`/campaigns/${campaign.id}`)).body.data;
    assert.equal(read.status, 'CANCELLED');
    const after = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    assert.ok(after.failedCount > 0, `the cancel's FAILED records, counted at once: ${JSON.stringify(after)}`);

    // The messages already handed to the relay settle; then every record is sent or failed, once.
    await until(
      'every record settled',
      async () => {
        stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
        return stats.queuedCount === 0;
      },
      60_000,
    );
    await until('the relay’s answers counted', async () => {
      stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
      return stats.sentCount === relay.messages.length;
    });
    assert.equal(stats.sentCount + stats.failedCount, 400, JSON.stringify(stats));
    assert.ok(stats.failedCount >= after.failedCount);
  });
});
