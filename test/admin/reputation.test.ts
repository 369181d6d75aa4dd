import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assess } from '../../src/reputation/reputation.service.ts';
import { type Account, createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { client } from '../kit/http.ts';
import { waitForRollup } from '../kit/rollups.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

describe('reputation levels (the industry thresholds, after 100 sends)', () => {
  const at = (attempted: number, bounced: number, complained: number) => assess({ attempted, bounced, complained });
  test('hard bounces: warning from 5 %, critical from 10 %; complaints: 0.1 % and 0.3 %; nothing judged under 100 sends', () => {
    assert.equal(at(99, 50, 50).level, 'insufficient_data');
    assert.deepEqual([at(100, 4, 0).bounceLevel, at(100, 5, 0).bounceLevel, at(100, 9, 0).bounceLevel, at(100, 10, 0).bounceLevel], ['ok', 'warning', 'warning', 'critical']);
    assert.deepEqual(
      [at(1000, 0, 0).complaintLevel, at(1000, 0, 1).complaintLevel, at(1000, 0, 2).complaintLevel, at(1000, 0, 3).complaintLevel],
      ['ok', 'warning', 'warning', 'critical'],
    );
    assert.equal(at(1000, 60, 3).level, 'critical', 'the worse of the two');
    assert.equal(at(1000, 60, 0).level, 'warning');
    assert.equal(at(1000, 0, 0).bounceRate, 0);
  });
});

/** 100 sends from a fresh project, of which `bounces` go to addresses the relay refuses with 550. */
async function sendHundred(server: TestServer, dns: DnsServer, project: TestProject, bounces: number) {
  const domain = await verifiedDomain(project, dns);
  const to = Array.from({ length: 100 }, (_, i) => uniqueEmail(i < bounces ? 'bounce' : 'fine'));
  const ids: string[] = [];
  for (let i = 0; i < to.length; i += 50) {
    const res = await project.api.post('/v1/send', { to: to.slice(i, i + 50), from: `hi@${domain.domain}`, subject: 'Hi', body: '<p>Hi</p>' });
    assert.equal(res.status, 200, res.text);
    ids.push(...res.body.data.emails.map((e: any) => e.email));
  }
  // Read in the database: once the last record settles the project may be disabled at once, and
  // then the API (key or session) answers 403 to a poll of the records.
  const deadline = Date.now() + 30_000;
  const settled = async () =>
    (
      await server.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM emails WHERE project_id = $1 AND id = ANY($2::uuid[]) AND status IN ('DELIVERED', 'BOUNCED')`, [
        project.id,
        ids,
      ])
    )[0]!.n;
  while ((await settled()) < ids.length) {
    assert.ok(Date.now() < deadline, 'the 100 records did not settle');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { from: `hi@${domain.domain}` };
}

const security = (server: TestServer, project: TestProject, cookie = project.owner.cookie) => client(server.url).get(`/users/@me/projects/${project.id}/security`, { cookie });

async function join(server: TestServer, project: TestProject, role: 'ADMIN' | 'MEMBER'): Promise<Account> {
  const account = await createAccount(server.url);
  const res = await client(server.url).post(`/projects/${project.id}/members`, { email: account.email, role }, { cookie: project.owner.cookie });
  assert.equal(res.status, 201, res.text);
  return account;
}

describe('automatic disabling for a critical bounce rate (AUTO_DISABLE=true), and re-enabling by an OWNER', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({ reply: (to) => (to.startsWith('bounce-') ? { code: 550 } : undefined) });
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url, AUTO_DISABLE: 'true' });
  });
  after(async () => {
    await server.close();
    await sink.close();
    await dns.close();
  });

  test('11 hard bounces in 100 sends disable the project: 403 PROJECT_DISABLED with the reason on every key call; audited', async () => {
    const project = await createProject(server.url);
    const { from } = await sendHundred(server, dns, project, 11);
    const deadline = Date.now() + 30_000;
    let state = await security(server, project);
    while (!state.body.disabled) {
      assert.ok(Date.now() < deadline, `not disabled: ${state.text}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      state = await security(server, project);
    }
    assert.equal(state.status, 200);
    assert.equal(state.body.status, 'critical');
    assert.deepEqual([state.body.last7Days.sends, state.body.last7Days.bounced, state.body.last7Days.bounceRate, state.body.last7Days.bounceLevel], [100, 11, 0.11, 'critical']);
    assert.equal(state.body.allTime.bounced, 11);
    assert.equal(state.body.autoDisable, true);
    assert.match(state.body.disabledReason, /hard bounce rate 11\.0% \(critical at 10\.0%\) over 100 sends/);
    assert.equal(state.body.suspensions.length, 1);
    assert.equal(state.body.suspensions[0].reason, state.body.disabledReason);

    const refused = await project.api.post('/v1/send', { to: uniqueEmail(), from, subject: 'Hi', body: '<p>Hi</p>' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'PROJECT_DISABLED');
    assert.equal(refused.body.error.details.reason, state.body.disabledReason);
    assert.equal((await project.api.get('/contacts')).status, 403);
    assert.equal((await project.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'x' })).status, 403);
    assert.equal((await project.dashboard.get('/contacts')).status, 403, 'dashboard calls to project resources too');
    assert.equal((await client(server.url).get('/users/@me/projects', { cookie: project.owner.cookie })).status, 200, 'account endpoints keep working');

    const audit = await client(server.url).get(`/projects/${project.id}/audit-log?action=project.disabled`, { cookie: project.owner.cookie });
    assert.equal(audit.body.data.length, 1);
    assert.equal(audit.body.data[0].actor, null, 'the service acted');
    assert.equal(audit.body.data[0].details.reason, state.body.disabledReason);

    // An ADMIN cannot lift a suspension the service imposed; the OWNER can, and it takes effect at once.
    const admin = await join(server, project, 'ADMIN');
    const byAdmin = await client(server.url).patch(`/users/@me/projects/${project.id}`, { disabled: false }, { cookie: admin.cookie });
    assert.equal(byAdmin.status, 403, byAdmin.text);
    const byOwner = await client(server.url).patch(`/users/@me/projects/${project.id}`, { disabled: false }, { cookie: project.owner.cookie });
    assert.equal(byOwner.status, 200, byOwner.text);
    assert.equal(byOwner.body.disabled, false);
    assert.equal((await project.api.get('/contacts')).status, 200);
    const reviewed = await security(server, project);
    assert.equal(reviewed.body.disabled, false);
    assert.equal(reviewed.body.disabledReason, null);
    assert.ok(reviewed.body.reviewedAt);

    // The sends before the review no longer count: one more bounce does not disable it again.
    const again = await project.api.post('/v1/send', { to: uniqueEmail('bounce'), from, subject: 'Hi', body: '<p>Hi</p>' });
    assert.equal(again.status, 200, again.text);
    await waitForStatus(project.api, again.body.data.emails[0].email, ['BOUNCED']);
    await waitForRollup(project.api);
    await waitForRollup(project.api, new Date());
    assert.equal((await security(server, project)).body.disabled, false);
    assert.equal((await project.api.get('/contacts')).status, 200);
    const enabled = await client(server.url).get(`/projects/${project.id}/audit-log?action=project.enabled`, { cookie: project.owner.cookie });
    assert.equal(enabled.body.data[0].actor.id, project.owner.id);
  });

  test('the security state is readable by any member under both paths; a stranger gets 404', async () => {
    const project = await createProject(server.url);
    const member = await join(server, project, 'MEMBER');
    for (const path of [`/users/@me/projects/${project.id}/security`, `/projects/${project.id}/security`]) {
      const res = await client(server.url).get(path, { cookie: member.cookie });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.status, 'insufficient_data');
      assert.deepEqual(res.body.thresholds, { minimumSends: 100, bounceRate: { warning: 0.05, critical: 0.1 }, complaintRate: { warning: 0.001, critical: 0.003 } });
      assert.deepEqual(res.body.suspensions, []);
    }
    const stranger = await createAccount(server.url);
    assert.equal((await client(server.url).get(`/projects/${project.id}/security`, { cookie: stranger.cookie })).status, 404);
    assert.equal((await client(server.url).get(`/projects/${project.id}/security`)).status, 401);
  });
});

describe('AUTO_DISABLE off (the default): critical rates are reported, the project keeps sending', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({ reply: (to) => (to.startsWith('bounce-') ? { code: 550 } : undefined) });
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url });
  });
  after(async () => {
    await server.close();
    await sink.close();
    await dns.close();
  });

  test('12 bounces in 100 sends: status critical, not disabled', async () => {
    const project = await createProject(server.url);
    await sendHundred(server, dns, project, 12);
    await waitForRollup(project.api);
    const state = await security(server, project);
    assert.equal(state.body.status, 'critical');
    assert.equal(state.body.autoDisable, false);
    assert.equal(state.body.disabled, false);
    assert.equal((await project.api.get('/contacts')).status, 200);
  });
});
