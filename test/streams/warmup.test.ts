import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Warmup } from '../../src/domains/warmup.ts';
import { createProject } from '../kit/accounts.ts';
import { campaignBody, countByRecipient, createCampaign, makeContacts, seedContacts, until, waitForCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// docs/streams.md, "Warm-up": a sending domain's daily caps on marketing mail, counted in the
// database for every worker; mail over the day's cap waits for the next UTC day of the warm-up
// clock (the database's, moved by the test through deps.warmupClock).

const DAY_MS = 24 * 60 * 60 * 1000;

describe('warm-up schedules of sending domains (docs/streams.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url }));
  });
  after(async () => {
    server.deps.warmupClock.offsetSeconds = 0;
    await server?.close();
    await sink?.close();
  });

  const dbNow = async () => new Date((await server.deps.db.query<{ now: Date | string }>('SELECT now() AS now'))[0]!.now).getTime();

  test('PATCH /domains/{id} warmup: the default schedule (200, doubling to 100,000), a custom one, a start date; invalid schedules are 422', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const off = await project.api.get(`/domains/${domain.id}`);
    assert.deepEqual(off.body.warmup, {
      enabled: false,
      schedule: [200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 100000],
      custom: false,
      startedAt: null,
      day: null,
      capToday: null,
      sentToday: 0,
    });

    const today = new Date(await dbNow()).toISOString().slice(0, 10);
    const on = await project.api.patch(`/domains/${domain.id}`, { warmup: { enabled: true } });
    assert.equal(on.status, 200, on.text);
    assert.deepEqual([on.body.warmup.enabled, on.body.warmup.custom, on.body.warmup.startedAt, on.body.warmup.day, on.body.warmup.capToday], [true, false, today, 1, 200]);
    assert.equal(on.body.inbound, false, 'inbound unchanged');

    const threeDaysAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 3 * DAY_MS).toISOString().slice(0, 10);
    const custom = await project.api.patch(`/domains/${domain.id}`, { warmup: { enabled: true, schedule: [50, 100, 150, 300], startedAt: threeDaysAgo } });
    assert.equal(custom.status, 200, custom.text);
    assert.deepEqual([custom.body.warmup.custom, custom.body.warmup.schedule, custom.body.warmup.day, custom.body.warmup.capToday], [true, [50, 100, 150, 300], 4, 300]);
    const listed = await project.api.get(`/domains/project/${project.id}`);
    assert.equal(listed.body.data[0].warmup.capToday, 300);

    // Past the last day the domain is warmed up: nothing is capped.
    const done = await project.api.patch(`/domains/${domain.id}`, { warmup: { enabled: true, startedAt: '2026-01-01' } });
    assert.equal(done.body.warmup.capToday, null);
    assert.deepEqual(done.body.warmup.schedule, [50, 100, 150, 300], 'the schedule is kept when omitted');
    const back = await project.api.patch(`/domains/${domain.id}`, { warmup: { enabled: false, schedule: null } });
    assert.deepEqual([back.body.warmup.enabled, back.body.warmup.custom, back.body.warmup.startedAt, back.body.warmup.day], [false, false, '2026-01-01', null]);

    for (const warmup of [
      { enabled: true, schedule: [] },
      { enabled: true, schedule: [100, 0] },
      { enabled: true, schedule: [1.5] },
      { enabled: true, startedAt: '2026-02-30' },
      { schedule: [100] },
    ]) {
      const bad = await project.api.patch(`/domains/${domain.id}`, { warmup });
      assert.equal(bad.status, 422, `${JSON.stringify(warmup)}: ${bad.text}`);
    }
    assert.equal((await project.api.patch(`/domains/${domain.id}`, {})).status, 422, 'an empty patch');
  });

  test('two workers taking from one domain at once never exceed its day cap together; transactional mail is not counted', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const set = await project.api.patch(`/domains/${domain.id}`, { warmup: { enabled: true, schedule: [100] } });
    assert.equal(set.status, 200, set.text);
    const mail = (stream: 'marketing' | 'transactional') => ({ project_id: project.id, id: randomUUID(), from_address: `news@${domain.domain}`, stream });
    const workers = [new Warmup(server.deps.db, server.deps.warmupClock), new Warmup(server.deps.db, server.deps.warmupClock)];
    const takes = await Promise.all(Array.from({ length: 8 }, (_, i) => workers[i % 2]!.take([...Array.from({ length: 30 }, () => mail('marketing')), mail('transactional')])));
    const going = takes.flatMap((take) => take.going);
    assert.equal(going.filter((row) => row.stream === 'marketing').length, 100, '100 of 240 marketing records');
    assert.equal(going.filter((row) => row.stream === 'transactional').length, 8, 'every transactional record');
    const later = takes.flatMap((take) => take.later);
    assert.equal(later.length, 140);
    assert.match(later[0]!.error, new RegExp(`^Waiting for the warm-up of ${domain.domain.replace(/\./g, '\\.')}: day 1 of its schedule allows 100 marketing messages`));
    const domainNow = await project.api.get(`/domains/${domain.id}`);
    assert.deepEqual([domainNow.body.warmup.capToday, domainNow.body.warmup.sentToday], [100, 100]);
  });

  test('a cap of 100 on day one: a 250-recipient campaign sends 100, says 150 wait until the next day, and sends them once each when the day comes', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const from = `news@${domain.domain}`;
    const contacts = makeContacts(`warm-${domain.domain.slice(5, 15)}`, 250);
    await seedContacts(project.api, contacts);
    const campaign = await createCampaign(project.api, campaignBody(from));
    assert.equal(campaign.totalRecipients, 250);

    // The warm-up day ends 45 s from now on the warm-up clock: time enough to send the first 100.
    const now = await dbNow();
    const shifted = Math.ceil((now + 1) / DAY_MS) * DAY_MS - 45_000;
    server.deps.warmupClock.offsetSeconds = (shifted - now) / 1000;
    const dayOne = new Date(shifted).toISOString().slice(0, 10);
    const midnight = now + (Math.ceil((now + 1) / DAY_MS) * DAY_MS - shifted);
    const set = await project.api.patch(`/domains/${domain.id}`, { warmup: { enabled: true, schedule: [100, 1000], startedAt: dayOne } });
    assert.equal(set.status, 200, set.text);
    assert.deepEqual([set.body.warmup.day, set.body.warmup.capToday], [1, 100]);

    const sent = await project.api.post(`/campaigns/${campaign.id}/send`);
    assert.equal(sent.status, 200, sent.text);
    const stats = async () => (await project.api.get(`/campaigns/${campaign.id}/stats`)).body.data;
    await until('100 delivered and 150 waiting', async () => {
      const s = await stats();
      return s.deliveredCount === 100 && s.warmupWaiting.count === 150;
    });
    const waiting = await stats();
    assert.equal(waiting.queuedCount, 150);
    assert.ok(
      Math.abs(Date.parse(waiting.warmupWaiting.until) - midnight) < 2_000,
      `waits until ${waiting.warmupWaiting.until}, the warm-up day ends at ${new Date(midnight).toISOString()}`,
    );
    assert.ok(Date.now() < midnight - 1_000, 'the first 100 left within day one');
    const campaignMail = () => sink.messages.filter((m) => m.envelope.from === from);
    assert.equal(campaignMail().length, 100);

    // Transactional mail from the same domain is never capped.
    const reset = await project.api.post('/v1/send', { to: 'reset@recipients.example.test', from: `account@${domain.domain}`, subject: 'Your reset link', body: '<p>Reset</p>' });
    assert.equal(reset.status, 200, reset.text);
    await until('the transactional message', () => sink.messages.some((m) => m.envelope.to[0] === 'reset@recipients.example.test'));

    // A record waits without an attempt, its reason on the record.
    const recipient = (await project.api.get(`/campaigns/${campaign.id}/recipients?status=QUEUED&pageSize=1`)).body.data[0];
    assert.match(recipient.error, /^Waiting for the warm-up of /);
    const email = await project.api.get(`/emails/${recipient.emailId}`);
    assert.equal(email.status, 200, email.text);
    assert.equal(email.body.status, 'QUEUED');
    assert.match(email.body.error, /^Waiting for the warm-up of .*: day 1 of its schedule allows 100 marketing messages, all sent; waits until /);

    // Day two: the 150 leave (cap 1,000), each once.
    await waitForCampaign(project.api, campaign.id, ['SENT'], 120_000);
    const received = countByRecipient(campaignMail().map((m) => m.envelope.to));
    for (const contact of contacts) assert.equal(received.get(contact.email) ?? 0, 1, contact.email);
    assert.equal(campaignMail().length, 250);
    assert.equal(campaignMail().filter((m) => m.receivedAt >= midnight - 1_000).length, 150, 'the 150 left on day two');
    const done = await stats();
    assert.deepEqual([done.deliveredCount, done.warmupWaiting.count, done.warmupWaiting.until], [250, 0, null]);
    const dayTwo = await project.api.get(`/domains/${domain.id}`);
    assert.deepEqual([dayTwo.body.warmup.day, dayTwo.body.warmup.capToday, dayTwo.body.warmup.sentToday], [2, 1000, 150]);
    server.deps.warmupClock.offsetSeconds = 0;
  });
});
