import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { INTERRUPTED_ERROR, MAX_IN_FLIGHT } from '../../src/delivery/delivery.service.ts';
import { createProject } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { prepareEnvironment, type SpawnedServer, spawnServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { campaignBody, countByRecipient, createCampaign, makeContacts, seedContacts, until, waitForCampaign } from './helpers.ts';

const CONTACTS = 400;
// Slow enough to be killed mid-campaign (about 8 s of sending).
const RATE = 50;

describe('a worker killed mid-campaign, then restarted (contract §9: no contact gets a campaign twice)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let server: SpawnedServer | undefined;
  let cleanup: () => Promise<void>;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
  });
  after(async () => {
    await server?.stop('SIGKILL');
    await cleanup?.();
    await sink.close();
    await dns.close();
  });

  test('SIGKILL while the campaign is sending, then restart: the campaign ends SENT, every subscribed contact got it at most once and all but the in-flight ones exactly once', async () => {
    const environment = await prepareEnvironment({ DNS_SERVERS: dns.address, SMTP_URL: sink.url, SEND_RATE_PER_SECOND: String(RATE) });
    cleanup = environment.cleanup;
    server = await spawnServer(environment.env);
    const project = await createProject(server.url);
    const from = `news@${(await verifiedDomain(project, dns)).domain}`;
    const contacts = makeContacts('crash', CONTACTS, 4); // every 4th unsubscribed
    const subscribed = contacts.filter((c) => c.subscribed);
    await seedContacts(project.api, contacts);
    const campaign = await createCampaign(project.api, campaignBody(from));
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);

    await until('delivery to begin', () => sink.messages.length >= RATE, 60_000);
    await server.stop('SIGKILL');
    const atKill = sink.messages.length;
    assert.ok(atKill < subscribed.length, `the kill came before the campaign finished (${atKill} sent)`);

    server = await spawnServer(environment.env);
    const api = client(server.url, { key: project.secretKey });
    // Records the dead worker held are taken over when their 60 s lease ends.
    const done = await waitForCampaign(api, campaign.id, ['SENT'], 150_000);
    assert.equal(done.totalRecipients, subscribed.length);

    const received = countByRecipient(sink.messages.map((m) => m.envelope.to));
    for (const contact of contacts.filter((c) => !c.subscribed)) assert.equal(received.get(contact.email), undefined, `${contact.email} is unsubscribed`);
    for (const [address, count] of received) assert.equal(count, 1, `${address} received ${count} messages`);

    // Every message the relay got is a record that was DELIVERED, or FAILED as interrupted (handed
    // over when the worker died: never handed over again, whatever the relay did with it).
    let delivered = 0;
    for (const message of sink.messages) {
      const id = String(message.parsed.messageId).replace(/^<|@.*$/g, '');
      const record = (await api.get(`/emails/${id}`)).body;
      if (record.status === 'DELIVERED') delivered += 1;
      else assert.deepEqual([record.status, record.error], ['FAILED', INTERRUPTED_ERROR]);
    }
    const stats = (await api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    assert.equal(stats.deliveredCount, delivered);
    assert.equal(stats.queuedCount, 0);
    assert.equal(stats.deliveredCount + stats.failedCount, subscribed.length, 'each subscribed contact: delivered, or failed as interrupted');
    assert.ok(stats.failedCount <= MAX_IN_FLIGHT, `${stats.failedCount} records were in flight at the kill`);
    assert.ok(received.size >= subscribed.length - stats.failedCount);
  });
});

