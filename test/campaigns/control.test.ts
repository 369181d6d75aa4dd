import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CANCELLED_ERROR, startCampaign } from '../../src/campaigns/campaign-sending.service.ts';
import { campaignBody, countByRecipient, createCampaign, makeContacts, seedContacts, until, waitForCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender as newProjectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// Slow enough that a campaign is still SENDING while the test acts on it.
const RATE = 20;

describe('campaigns in flight: cancel, delete, late contacts, scheduled start (docs/decisions/campaigns.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, SEND_RATE_PER_SECOND: String(RATE) }));
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  const projectWithSender = () => newProjectWithSender(server.url, dns, 'news');
  const receivedFrom = (from: string) => sink.messages.filter((m) => m.envelope.from === from);

  test('cancel mid-send: CANCELLED at once, records not yet handed over are FAILED and never sent, the rest were sent once', async () => {
    const { project, from } = await projectWithSender();
    const contacts = makeContacts('cancel', 300);
    await seedContacts(project.api, contacts);
    const campaign = await createCampaign(project.api, campaignBody(from));
    await project.api.post(`/campaigns/${campaign.id}/send`);
    await until('the first messages', () => receivedFrom(from).length >= RATE);

    const deleting = await project.api.delete(`/campaigns/${campaign.id}`);
    assert.equal(deleting.status, 409, 'a SENDING campaign cannot be deleted');
    assert.equal(deleting.body.error.code, 'CAMPAIGN_SENDING');

    const cancelled = await project.api.post(`/campaigns/${campaign.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.data.status, 'CANCELLED');
    // Once nothing of it is queued or held by a worker, nothing more can leave.
    await until('every record settled', async () => (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data.queuedCount === 0);
    const stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    const received = countByRecipient(receivedFrom(from).map((m) => m.envelope.to));
    assert.equal(stats.totalRecipients, 300);
    assert.equal(stats.sentCount, received.size, 'what was sent is what the relay got');
    assert.ok(stats.sentCount < 300, `cancel stopped the rest (${stats.sentCount} sent)`);
    assert.equal(stats.failedCount, 300 - stats.sentCount, 'the rest failed as cancelled');
    for (const count of received.values()) assert.equal(count, 1);

    const record = await project.api.get(`/emails/${await failedRecordOf(campaign.id)}`);
    assert.equal(record.body.status, 'FAILED');
    assert.equal(record.body.error, CANCELLED_ERROR);
    assert.equal((await project.api.get(`/campaigns/${campaign.id}`)).body.data.status, 'CANCELLED', 'stays CANCELLED (never SENT)');
    assert.equal((await project.api.delete(`/campaigns/${campaign.id}`)).status, 204, 'a CANCELLED campaign deletes');
  });

  async function failedRecordOf(campaignId: string): Promise<string> {
    const rows = await server.deps.db.query<{ id: string }>(`SELECT id FROM emails WHERE campaign_id = $1 AND status = 'FAILED' LIMIT 1`, [campaignId]);
    return rows[0]!.id;
  }

  test('the audience is fixed when sending begins: a contact added afterwards is not sent to', async () => {
    const { project, from } = await projectWithSender();
    await seedContacts(project.api, makeContacts('fixed', 40));
    const campaign = await createCampaign(project.api, campaignBody(from));
    await project.api.post(`/campaigns/${campaign.id}/send`);
    await until('sending to begin', () => receivedFrom(from).length > 0);
    const late = await project.api.post('/contacts', { email: 'late@recipients.example.test', subscribed: true });
    assert.equal(late.status, 201, late.text);
    const done = await waitForCampaign(project.api, campaign.id, ['SENT']);
    assert.deepEqual([done.totalRecipients, done.sentCount], [40, 40]);
    const received = countByRecipient(receivedFrom(from).map((m) => m.envelope.to));
    assert.equal(received.size, 40);
    assert.equal(received.get('late@recipients.example.test'), undefined);
  });

  test('the start job run again (as after a crash) makes no second record: the unique index skips contacts that have one', async () => {
    const { project, from } = await projectWithSender();
    await seedContacts(project.api, makeContacts('twice', 3));
    const campaign = await createCampaign(project.api, campaignBody(from));
    await project.api.post(`/campaigns/${campaign.id}/send`);
    await waitForCampaign(project.api, campaign.id, ['SENT']);
    // As if the run that fixed the audience had never been recorded: SENDING, audience not fixed.
    await server.deps.db.query(`UPDATE campaigns SET status = 'SENDING', audience_fixed_at = NULL WHERE id = $1`, [campaign.id]);
    await startCampaign(server.deps, project.id, campaign.id);
    const again = await waitForCampaign(project.api, campaign.id, ['SENT']);
    assert.deepEqual([again.totalRecipients, again.sentCount], [3, 3]);
    const records = await server.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM emails WHERE campaign_id = $1', [campaign.id]);
    assert.equal(records[0]!.n, 3);
    assert.equal(receivedFrom(from).length, 3, 'nobody got it twice');
  });

  test('a scheduled campaign starts within 5 seconds of scheduledFor, not before', async () => {
    const { project, from } = await projectWithSender();
    await seedContacts(project.api, makeContacts('sched', 3));
    const campaign = await createCampaign(project.api, campaignBody(from));
    const at = new Date(Date.now() + 3_000);
    const scheduled = await project.api.post(`/campaigns/${campaign.id}/send`, { scheduledFor: at.toISOString() });
    assert.equal(scheduled.status, 200, scheduled.text);
    assert.equal(scheduled.body.data.status, 'SCHEDULED');
    const done = await waitForCampaign(project.api, campaign.id, ['SENT'], 30_000);
    const startedAfter = new Date(done.sentAt).getTime() - at.getTime();
    assert.ok(startedAfter >= 0, `started ${-startedAfter} ms early`);
    assert.ok(startedAfter < 5_000, `started ${startedAfter} ms after scheduledFor`);
    assert.equal(done.scheduledFor, at.toISOString());
    assert.equal(countByRecipient(receivedFrom(from).map((m) => m.envelope.to)).size, 3);
  });
});
