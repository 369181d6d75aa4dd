import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CANCELLED_ERROR, startCampaign } from '../../src/campaigns/campaign-sending.service.ts';
import { REQUEUED_CANCELLED_ERROR } from '../../src/emails/email-status.queries.ts';
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
  // One address of a test, once: its RCPT TO is held until the test releases it, then deferred (451).
  let deferOnce: { addresses: Set<string>; reached: (address: string) => void; release: Promise<void> } | undefined;
  let deferred: string | undefined;
  before(async () => {
    sink = await startSmtpSink({
      holdRcpt: (to) => {
        if (!deferOnce?.addresses.has(to.toLowerCase())) return undefined;
        const { reached, release } = deferOnce;
        deferOnce = undefined;
        deferred = to.toLowerCase();
        reached(deferred);
        return release;
      },
      reply: (to, attempt) => (to.toLowerCase() === deferred && attempt === 1 ? { code: 451 } : undefined),
    });
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
    let stats: Record<string, number> = {};
    const settled = async () => {
      stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
      return stats.queuedCount === 0;
    };
    await until('every record settled', settled).catch((error: Error) => assert.fail(`${error.message}; last stats ${JSON.stringify(stats)}`));
    const received = countByRecipient(receivedFrom(from).map((m) => m.envelope.to));
    const seen = `stats ${JSON.stringify(stats)}, relay got ${received.size} recipients`;
    assert.equal(stats.totalRecipients, 300, seen);
    assert.equal(stats.sentCount, received.size, `what was sent is what the relay got: ${seen}`);
    assert.ok(stats.sentCount! < 300, `cancel stopped the rest: ${seen}`);
    assert.equal(stats.failedCount, 300 - stats.sentCount!, `the rest failed as cancelled: ${seen}`);
    for (const [address, count] of received) assert.equal(count, 1, `${address} got ${count} copies`);

    const record = await project.api.get(`/emails/${await failedRecordOf(campaign.id)}`);
    assert.equal(record.body.status, 'FAILED');
    assert.equal(record.body.error, CANCELLED_ERROR);
    assert.equal((await project.api.get(`/campaigns/${campaign.id}`)).body.data.status, 'CANCELLED', 'stays CANCELLED (never SENT)');
    assert.equal((await project.api.delete(`/campaigns/${campaign.id}`)).status, 204, 'a CANCELLED campaign deletes');
  });

  test('a message the relay defers while its campaign is cancelled is not tried again: FAILED, never received', async () => {
    const { project, from } = await projectWithSender();
    const contacts = makeContacts('deferred', 60);
    await seedContacts(project.api, contacts);
    let reached!: (address: string) => void;
    const held = new Promise<string>((resolve) => {
      reached = resolve;
    });
    let release!: () => void;
    deferOnce = { addresses: new Set(contacts.map((c) => c.email)), reached, release: new Promise<void>((resolve) => (release = resolve)) };
    const campaign = await createCampaign(project.api, campaignBody(from));
    await project.api.post(`/campaigns/${campaign.id}/send`);
    const address = await held;

    // Its message is at the relay, its RCPT TO unanswered: handed over, so the cancel leaves it.
    const cancelled = await project.api.post(`/campaigns/${campaign.id}/cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    release();
    await until('every record settled', async () => (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data.queuedCount === 0);
    // A retry after the first deferral would come 1.5 to 2.5 s later (docs/decisions/sending.md).
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    assert.equal(sink.attempts(address), 1, 'the relay was asked once');
    assert.equal(receivedFrom(from).filter((m) => m.envelope.to.includes(address)).length, 0);
    const rows = await server.deps.db.query<{ id: string }>('SELECT id FROM emails WHERE campaign_id = $1 AND to_address = $2', [campaign.id, address]);
    const record = await project.api.get(`/emails/${rows[0]!.id}`);
    assert.equal(record.body.status, 'FAILED', record.text);
    assert.equal(record.body.error, REQUEUED_CANCELLED_ERROR);
    const stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    assert.equal(stats.sentCount + stats.failedCount, 60, JSON.stringify(stats));
    assert.equal(stats.sentCount, countByRecipient(receivedFrom(from).map((m) => m.envelope.to)).size);
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
