import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_IN_FLIGHT } from '../../src/delivery/delivery.service.ts';
import { createProject } from '../kit/accounts.ts';
import { campaignBody, createCampaign, makeContacts, seedContacts, until, waitForCampaign } from '../kit/campaigns.ts';
import { type CountingRelay, startCountingRelay } from '../kit/counting-relay.ts';
import { type Deployment, startDeployment } from '../kit/deployment.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { prepareEnvironment } from '../kit/server.ts';

// Per worker process: slow enough for two kills mid-campaign, fast enough for a short test.
const RATE = 250;

/** Sets up a deployment, a project with a verified sender, `n` contacts (every 16th unsubscribed), and starts a campaign. */
async function campaignUnderWay(dns: DnsServer, relay: CountingRelay, n: number, overrides: Record<string, string>) {
  const environment = await prepareEnvironment({
    DNS_SERVERS: dns.address,
    SMTP_URL: relay.url,
    SEND_RATE_PER_SECOND: String(RATE),
    RATE_LIMIT_PER_MINUTE: '100000',
    ...overrides,
  });
  const deployment = await startDeployment(environment.env);
  const project = await createProject(deployment.apiUrl());
  const from = `news@${(await verifiedDomain(project, dns)).domain}`;
  const contacts = makeContacts(`crash${n}`, n, 16);
  await seedContacts(project.api, contacts);
  const campaign = await createCampaign(
    project.api,
    campaignBody(from, {
      subject: 'Spring news for {{name ?? "friend"}}: what changed, and what did not',
      body: `<h1>Hello {{name ?? "friend"}}</h1><p>${'The spring edition covers the new dashboard, the import fixes and the price list. '.repeat(8)}</p>
        <ul><li>Dashboard</li><li>Imports — 导入</li><li>Prices — цены</li></ul>
        <table><tr><th>Plan</th><th>Price</th></tr><tr><td>Starter</td><td>€9</td></tr><tr><td>Team</td><td>€49</td></tr></table>
        <p><a href="https://example.com/spring">Read it online</a></p>`,
    }),
  );
  assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
  return { environment, deployment, project, campaign, contacts, subscribed: contacts.filter((c) => c.subscribed) };
}

/**
 * Checks the end state against what the relay received: every subscribed contact got the campaign
 * (0 lost), nobody else did, repeats carry the record's own Message-ID and are counted on the
 * record, and the campaign's counters equal the relay's count. Returns the number of repeats.
 */
async function assertNothingLost(deployment: Deployment, secretKey: string, relay: CountingRelay, run: Awaited<ReturnType<typeof campaignUnderWay>>) {
  const api = client(deployment.apiUrl(), { key: secretKey });
  const done = await waitForCampaign(api, run.campaign.id, ['SENT'], 120_000);
  assert.equal(done.totalRecipients, run.subscribed.length);
  const received = relay.countByRecipient();
  for (const contact of run.contacts) {
    const count = received.get(contact.email) ?? 0;
    if (contact.subscribed) assert.ok(count >= 1, `${contact.email} never got the campaign`);
    else assert.equal(relay.rcpts.get(contact.email), undefined, `${contact.email} is unsubscribed`);
  }
  for (const [address, count] of received) assert.ok((relay.rcpts.get(address) ?? 0) >= count, `${address}: more messages than RCPT TO`);

  const idsByRecipient = new Map<string, Set<string>>();
  for (const message of relay.messages) for (const to of message.to) idsByRecipient.set(to, (idsByRecipient.get(to) ?? new Set()).add(message.messageId));
  let repeats = 0;
  for (const [address, count] of received) {
    if (count === 1) continue;
    repeats += count - 1;
    const ids = [...idsByRecipient.get(address)!];
    assert.equal(ids.length, 1, `${address} got ${count} messages with different Message-IDs: ${ids.join(' ')}`);
    const record = (await api.get(`/emails/${ids[0]!.replace(/^<|@.*$/g, '')}`)).body;
    assert.equal(record.to, address);
    assert.equal(record.messageId, ids[0]);
    assert.equal(record.status, 'DELIVERED');
    assert.ok(record.resends >= count - 1, `${address}: ${count} messages, the record counts ${record.resends} resends`);
  }

  const stats = (await api.get(`/campaigns/${run.campaign.id}/stats`)).body.data;
  assert.equal(stats.queuedCount, 0);
  assert.equal(stats.failedCount, 0);
  assert.equal(stats.sentCount, received.size, 'sentCount = the recipients the relay got it for');
  assert.equal(stats.deliveredCount, received.size, 'deliveredCount = the recipients the relay got it for');
  return repeats;
}

describe('campaign delivery survives crashes and deploys (docs/decisions/sending.md: no accepted message is lost)', () => {
  let dns: DnsServer;
  before(async () => {
    dns = await startDnsServer();
  });
  after(async () => {
    await dns.close();
  });

  test('3,200 contacts, the worker SIGKILLed at 25 % and 60 % and restarted: 0 lost, repeats only of hand-offs in flight (same Message-ID), counters = the relay, delivery again within 5 s of each restart', async () => {
    const relay = await startCountingRelay({ delayMs: 20 });
    const run = await campaignUnderWay(dns, relay, 3200, {});
    const { deployment } = run;
    try {
      const inFlightAtKills: number[] = [];
      for (const share of [0.25, 0.6]) {
        await until(`${share * 100} % delivered`, () => relay.messages.length >= share * run.subscribed.length, 90_000);
        const { seen } = await deployment.signalWorker('SIGKILL', () => relay.inFlight());
        inFlightAtKills.push(seen);
        assert.ok(relay.messages.length < run.subscribed.length, 'the kill came before the campaign was sent');
        const ready = await deployment.restartWorker();
        const before = relay.messages.length;
        await until('delivery to resume', () => relay.messages.length > before, 15_000);
        const resumedMs = Date.now() - ready;
        assert.ok(resumedMs <= 5_000, `delivery resumed ${resumedMs} ms after the restarted worker was ready`);
      }
      const repeats = await assertNothingLost(deployment, run.project.secretKey, relay, run);
      // Only hand-offs in flight when the worker died can be repeated: at most one per permit per kill.
      assert.ok(repeats <= 2 * MAX_IN_FLIGHT, `${repeats} repeats; the relay had ${inFlightAtKills.join(' and ')} transactions open at the kills`);
    } finally {
      await deployment.stop();
      await run.environment.cleanup();
      await relay.close();
    }
  });

  test('SIGTERM to the worker mid-campaign with SHUTDOWN_TIMEOUT_SECONDS=2: it exits 0 within the timeout, holds no claim, and after a restart nothing is lost or repeated', async () => {
    // Each answer takes 300 ms: the SIGTERM finds hand-offs in flight, which finish within the timeout.
    const relay = await startCountingRelay({ delayMs: 300 });
    const run = await campaignUnderWay(dns, relay, 800, { SHUTDOWN_TIMEOUT_SECONDS: '2' });
    const { deployment } = run;
    try {
      await until('30 % delivered', () => relay.messages.length >= 0.3 * run.subscribed.length, 90_000);
      const signalled = Date.now();
      const { seen, code } = await deployment.signalWorker('SIGTERM', () => relay.inFlight());
      assert.equal(code, 0, deployment.output().slice(-3000));
      // The 2 s timeout plus the process's own teardown, which took 4.7 s on a machine running three test passes at once.
      assert.ok(Date.now() - signalled < 8_000, `the worker took ${Date.now() - signalled} ms to stop`);
      assert.ok(seen > 0, 'hand-offs were in flight at the SIGTERM');
      const db = await deployment.openDatabase();
      try {
        const [held] = await db.query<{ sending: number; handed: number }>(
          `SELECT count(*) FILTER (WHERE status = 'SENDING')::int AS sending, count(*) FILTER (WHERE status = 'SENDING' AND handed_off_at IS NOT NULL)::int AS handed FROM emails`,
        );
        assert.deepEqual(held, { sending: 0, handed: 0 }, 'every claimed record was settled or given back');
      } finally {
        await db.close();
      }
      await deployment.restartWorker();
      const repeats = await assertNothingLost(deployment, run.project.secretKey, relay, run);
      assert.equal(repeats, 0);
    } finally {
      await deployment.stop();
      await run.environment.cleanup();
      await relay.close();
    }
  });
});
