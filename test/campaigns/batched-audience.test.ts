import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_IN_FLIGHT } from '../../src/delivery/delivery.service.ts';
import { createProject } from '../kit/accounts.ts';
import { campaignBody, createCampaign, makeContacts, seedContacts, until, waitForCampaign } from '../kit/campaigns.ts';
import { type CountingRelay, startCountingRelay } from '../kit/counting-relay.ts';
import { startDeployment } from '../kit/deployment.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { projectWithSender, verifiedDomain } from '../kit/domains.ts';
import { type Client, client } from '../kit/http.ts';
import { prepareEnvironment, startTestServer, type TestServer } from '../kit/server.ts';

// Tiny batches, so that the audience takes hundreds of transactions to fix and a test can act
// while it is being fixed (on the embedded database a batch of 25 fixed 4,000 contacts before the
// first message left).
const BATCH = 3;

/** Records the campaign has so far, whatever their status: how much of the audience is fixed. */
async function recordsOf(api: Client, campaignId: string): Promise<number> {
  const stats = (await api.get(`/campaigns/${campaignId}/stats`)).body.data;
  return stats.queuedCount + stats.sentCount + stats.failedCount + stats.suppressedCount;
}

describe('a campaign audience fixed in batches (docs/decisions/campaigns.md, "Sending")', () => {
  let dns: DnsServer;
  let relay: CountingRelay;
  let server: TestServer;
  before(async () => {
    dns = await startDnsServer();
    relay = await startCountingRelay();
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: relay.url, CAMPAIGN_AUDIENCE_BATCH: String(BATCH), RATE_LIMIT_PER_MINUTE: '100000' });
  });
  after(async () => {
    await server.close();
    await relay.close();
    await dns.close();
  });

  test('1,000 contacts in batches of 3: each gets exactly one message, a suppressed one a SUPPRESSED record and its event instead, a contact created after the send nothing', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    // TRANSACTIONAL: the unsubscribed are mailed too and the suppressed keep a record (docs/decisions/sending.md).
    const contacts = makeContacts('batched', 1000, 10);
    await seedContacts(project.api, contacts);
    const suppressed = contacts.filter((_, i) => i % 100 === 7).map((c) => c.email);
    for (const email of suppressed) assert.equal((await project.api.post('/suppressions', { email })).status, 201);
    const campaign = await createCampaign(project.api, campaignBody(from, { type: 'TRANSACTIONAL', subject: 'Your account statement, {{name}}' }));
    const mailed = contacts.length - suppressed.length;
    assert.equal(campaign.totalRecipients, mailed);

    const sent = await project.api.post(`/campaigns/${campaign.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    const late = await project.api.post('/contacts', { email: 'late-batched@recipients.example.test', subscribed: true });
    assert.equal(late.status, 201, late.text);
    const sending = (await project.api.get(`/campaigns/${campaign.id}`)).body.data;
    assert.equal(sending.totalRecipients, mailed, 'the count at send time while the audience is being fixed');

    const done = await waitForCampaign(project.api, campaign.id, ['SENT'], 120_000);
    assert.equal(done.totalRecipients, mailed);
    assert.equal(done.sentCount, mailed);
    const stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    assert.equal(stats.suppressedCount, suppressed.length);
    assert.equal(stats.failedCount, 0);

    const received = relay.countByRecipient();
    const suppressedSet = new Set(suppressed);
    for (const contact of contacts) {
      const expected = suppressedSet.has(contact.email) ? 0 : 1;
      assert.equal(received.get(contact.email) ?? 0, expected, `${contact.email}: ${received.get(contact.email) ?? 0} messages`);
    }
    assert.equal(received.get('late-batched@recipients.example.test'), undefined, 'created after sending began');
    const events = await server.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND name = 'email.suppressed' AND data->>'campaignId' = $2`,
      [project.id, campaign.id],
    );
    assert.equal(events[0]!.n, suppressed.length, 'one email.suppressed event per suppressed contact');
  });

  test('cancel while the audience is still being fixed: hand-offs stop within 5 s of the answer, no further batch is made, no record stays QUEUED', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    const contacts = makeContacts('cancel-fixing', 2000);
    await seedContacts(project.api, contacts);
    const campaign = await createCampaign(project.api, campaignBody(from, { subject: 'Cancelled {{name}}' }));
    const ours = () => relay.messages.filter((m) => m.to[0]?.startsWith('cancel-fixing-'));
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
    await until('the first messages', () => ours().length > 0);
    const madeBefore = await recordsOf(project.api, campaign.id);
    assert.ok(madeBefore < contacts.length, `delivery began after ${madeBefore} of ${contacts.length} records`);

    const cancelled = await project.api.post(`/campaigns/${campaign.id}/cancel`);
    const answeredAt = Date.now();
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.data.status, 'CANCELLED');
    await until('every record settled', async () => (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data.queuedCount === 0, 10_000);
    const made = await recordsOf(project.api, campaign.id);
    // Long enough for another batch, had the start gone on.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(await recordsOf(project.api, campaign.id), made, 'no batch after the cancel');
    assert.ok(made < contacts.length, `fixing stopped at ${made} of ${contacts.length}`);

    const lastHandOff = Math.max(...ours().map((m) => m.receivedAt));
    assert.ok(lastHandOff - answeredAt <= 5_000, `the last message arrived ${lastHandOff - answeredAt} ms after the cancel's answer`);
    const queued = await server.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM emails WHERE project_id = $1 AND campaign_id = $2 AND status = 'QUEUED'`, [
      project.id,
      campaign.id,
    ]);
    assert.equal(queued[0]!.n, 0);
    const stats = (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    const received = relay.countByRecipient();
    const ourRecipients = [...received.keys()].filter((to) => to.startsWith('cancel-fixing-'));
    assert.equal(stats.sentCount, ourRecipients.length, 'what was sent is what the relay got');
    assert.equal(stats.failedCount, made - stats.sentCount, 'the rest failed as cancelled');
    for (const to of ourRecipients) assert.equal(received.get(to), 1);
    assert.equal((await project.api.get(`/campaigns/${campaign.id}`)).body.data.status, 'CANCELLED');
  });
});

describe('a worker killed while it fixes an audience (docs/decisions/campaigns.md, "Never twice")', () => {
  test('600 contacts in batches of 2, the worker SIGKILLed mid-fix and restarted: the start resumes past the last batch, one record per contact, every contact mailed', async () => {
    const dns = await startDnsServer();
    const relay = await startCountingRelay({ delayMs: 5 });
    const environment = await prepareEnvironment({ DNS_SERVERS: dns.address, SMTP_URL: relay.url, CAMPAIGN_AUDIENCE_BATCH: '2', RATE_LIMIT_PER_MINUTE: '100000' });
    const deployment = await startDeployment(environment.env);
    try {
      const project = await createProject(deployment.apiUrl());
      const from = `news@${(await verifiedDomain(project, dns)).domain}`;
      const contacts = makeContacts('killed-fix', 600, 20);
      const subscribed = contacts.filter((c) => c.subscribed);
      await seedContacts(project.api, contacts);
      const campaign = await createCampaign(project.api, campaignBody(from));
      assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
      await until('the first batches', async () => (await recordsOf(project.api, campaign.id)) >= 50, 30_000);
      await deployment.signalWorker('SIGKILL', () => relay.inFlight());

      const db = await deployment.openDatabase();
      try {
        const [row] = await db.query<{ fixed: boolean; through: string | null; records: number }>(
          `SELECT audience_fixed_at IS NOT NULL AS fixed, audience_fixed_through AS through,
             (SELECT count(*)::int FROM emails e WHERE e.project_id = c.project_id AND e.campaign_id = c.id) AS records
           FROM campaigns c WHERE project_id = $1 AND id = $2`,
          [project.id, campaign.id],
        );
        assert.equal(row!.fixed, false, 'the kill came while the audience was being fixed');
        assert.ok(row!.through, 'the last batch made is remembered');
        assert.ok(row!.records < subscribed.length, `${row!.records} records at the kill`);
      } finally {
        await db.close();
      }

      await deployment.restartWorker();
      // The embedded deployment's one process came back on another port.
      const api = client(deployment.apiUrl(), { key: project.secretKey });
      const done = await waitForCampaign(api, campaign.id, ['SENT'], 90_000);
      assert.equal(done.totalRecipients, subscribed.length);
      assert.equal(await recordsOf(api, campaign.id), subscribed.length, 'one record per contact');
      const received = relay.countByRecipient();
      let repeats = 0;
      for (const contact of contacts) {
        const count = received.get(contact.email) ?? 0;
        if (!contact.subscribed) assert.equal(count, 0, `${contact.email} is unsubscribed`);
        else assert.ok(count >= 1, `${contact.email} never got the campaign`);
        repeats += Math.max(0, count - 1);
      }
      // Only a hand-off in flight at the kill may be repeated, with its record's Message-ID (docs/decisions/sending.md).
      assert.ok(repeats <= MAX_IN_FLIGHT, `${repeats} repeats`);
      const ids = new Map<string, Set<string>>();
      for (const message of relay.messages) for (const to of message.to) ids.set(to, (ids.get(to) ?? new Set()).add(message.messageId));
      for (const [to, set] of ids) assert.equal(set.size, 1, `${to} got messages with different Message-IDs`);
    } finally {
      await deployment.stop();
      await environment.cleanup();
      await relay.close();
      await dns.close();
    }
  });
});
