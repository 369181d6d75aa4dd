import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { verdictOf } from '../../src/reputation/reputation.service.ts';
import { type Account, createAccount, createProject, uniqueEmail } from '../kit/accounts.ts';
import { campaignBody, createCampaign, seedContacts, until, waitForCampaign } from '../kit/campaigns.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// docs/decisions/reputation.md, "Per stream": AUTO_DISABLE pauses marketing mail first and leaves
// transactional mail flowing, unless the transactional rates themselves are critical.

describe('which stream AUTO_DISABLE stops (verdictOf)', () => {
  const counts = (attempted: number, bounced: number, complained = 0) => ({ attempted, bounced, complained });
  test('critical transactional rates disable the project; critical marketing rates pause marketing only; the project together decides when neither stream has 100 sends', () => {
    assert.deepEqual(
      [verdictOf({ transactional: counts(100, 11), marketing: counts(500, 100) }, undefined, false)?.action, verdictOf({ transactional: counts(100, 11) }, undefined, false)?.of],
      ['disable', 'transactional'],
    );
    const pause = verdictOf({ transactional: counts(1000, 3), marketing: counts(200, 25) }, counts(1200, 28), false);
    assert.deepEqual([pause?.action, pause?.of, pause?.window.bounceRate], ['pause', 'marketing', 0.125]);
    assert.equal(verdictOf({ transactional: counts(1000, 3), marketing: counts(200, 25) }, undefined, true), undefined, 'already paused');
    assert.equal(verdictOf({ transactional: counts(1000, 0), marketing: counts(1000, 2, 1) }, undefined, false)?.action, undefined, 'complaints 0.1 %: a warning only');
    assert.equal(verdictOf({ marketing: counts(1000, 0, 3) }, undefined, false)?.action, 'pause', 'complaints 0.3 %');
    // 60 + 60 sends: neither stream is judged alone; the project's 16.7 % pauses marketing first.
    assert.deepEqual(verdictOf({ transactional: counts(60, 0), marketing: counts(60, 20) }, counts(120, 20), false)?.action, 'pause');
    assert.equal(verdictOf({ transactional: counts(60, 0), marketing: counts(60, 20) }, counts(120, 20), true), undefined, 'marketing paused: transactional is judged on its own');
    assert.equal(verdictOf({ transactional: counts(60, 12) }, counts(120, 20), false)?.action, 'disable', 'no marketing sent: the project');
  });
});

describe('marketing paused for its bounce rate, transactional mail flowing, resumed by an OWNER (AUTO_DISABLE=true)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({ reply: (to) => (to.startsWith('bounce-') ? { code: 550 } : undefined) });
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url, AUTO_DISABLE: 'true' });
  });
  after(async () => {
    await server?.close();
    await sink?.close();
    await dns?.close();
  });

  const security = (projectId: string, cookie: string) => client(server.url).get(`/users/@me/projects/${projectId}/security`, { cookie });

  test('a campaign with 20 hard bounces in 100 pauses marketing: the next campaign is held, password resets still leave; the OWNER resumes it', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const from = `news@${domain.domain}`;
    const label = domain.domain.slice(5, 15);
    await seedContacts(
      project.api,
      Array.from({ length: 100 }, (_, i) => ({ email: `${i < 20 ? 'bounce' : 'reader'}-${label}-${i}@recipients.example.test`, subscribed: true, name: `Reader ${i}` })),
    );
    const first = await createCampaign(project.api, campaignBody(from, { name: 'Autumn sale' }));
    assert.equal((await project.api.post(`/campaigns/${first.id}/send`)).status, 200);
    await waitForCampaign(project.api, first.id, ['SENT'], 60_000);

    let state = await security(project.id, project.owner.cookie);
    await until('marketing paused', async () => (state = await security(project.id, project.owner.cookie)).body.marketingPaused === true, 30_000);
    assert.equal(state.body.disabled, false, 'the project stays enabled');
    assert.match(state.body.marketingPausedReason, /^Marketing mail paused automatically: marketing hard bounce rate 20\.0% \(critical at 10\.0%\) over 100 sends/);
    const { marketing, transactional } = state.body.streams;
    assert.deepEqual([marketing.last7Days.sends, marketing.last7Days.bounced, marketing.last7Days.bounceLevel], [100, 20, 'critical']);
    assert.deepEqual([transactional.last7Days.sends, transactional.last7Days.level], [0, 'insufficient_data']);
    const audit = await client(server.url).get(`/projects/${project.id}/audit-log?action=project.marketing_paused`, { cookie: project.owner.cookie });
    assert.equal(audit.body.data.length, 1, audit.text);
    assert.equal(audit.body.data[0].actor, null, 'the service acted');

    // Transactional mail keeps flowing from the same domain.
    const reset = await project.api.post('/v1/send', { to: uniqueEmail('reset'), from: `account@${domain.domain}`, subject: 'Reset your password', body: '<p>Your link</p>' });
    assert.equal(reset.status, 200, reset.text);
    await waitForStatus(project.api, reset.body.data.emails[0].email, ['DELIVERED']);

    // A second campaign's records are held, not attempted, the reason on each.
    await seedContacts(project.api, [{ email: `late-${label}@recipients.example.test`, subscribed: true }]);
    const second = await createCampaign(
      project.api,
      campaignBody(from, {
        name: 'Winter sale',
        audienceType: 'FILTERED',
        audienceCondition: { logic: 'AND', groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'late-' }] }] },
      }),
    );
    assert.equal(second.totalRecipients, 1, JSON.stringify(second));
    assert.equal((await project.api.post(`/campaigns/${second.id}/send`)).status, 200);
    let held: any;
    await until('the second campaign held', async () => {
      held = (await project.api.get(`/campaigns/${second.id}/recipients`)).body.data[0];
      return held?.status === 'QUEUED' && /^Held: Marketing mail paused automatically/.test(held.error ?? '');
    });
    const record = await project.api.get(`/emails/${held.emailId}`);
    assert.equal(record.body.status, 'QUEUED');
    assert.equal(sink.messages.filter((m) => m.envelope.to[0] === `late-${label}@recipients.example.test`).length, 0, 'nothing left for the held recipient');

    // An ADMIN may not resume it; the OWNER does, and the held mail leaves at once.
    const admin: Account = await createAccount(server.url);
    assert.equal((await client(server.url).post(`/projects/${project.id}/members`, { email: admin.email, role: 'ADMIN' }, { cookie: project.owner.cookie })).status, 201);
    const byAdmin = await client(server.url).patch(`/users/@me/projects/${project.id}`, { marketingPaused: false }, { cookie: admin.cookie });
    assert.equal(byAdmin.status, 403, byAdmin.text);
    const byOwner = await client(server.url).patch(`/users/@me/projects/${project.id}`, { marketingPaused: false }, { cookie: project.owner.cookie });
    assert.equal(byOwner.status, 200, byOwner.text);
    await waitForCampaign(project.api, second.id, ['SENT'], 30_000);
    assert.equal(sink.messages.filter((m) => m.envelope.to[0] === `late-${label}@recipients.example.test`).length, 1);
    const resumed = await security(project.id, project.owner.cookie);
    assert.deepEqual([resumed.body.marketingPaused, resumed.body.marketingPausedReason], [false, null]);
    assert.ok(resumed.body.reviewedAt, 'resuming is a review: the earlier sends no longer count');
  });
});
