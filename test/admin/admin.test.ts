import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Account, createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { publishRecords, uniqueDomain, verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { client } from '../kit/http.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

describe('Project administration: setup-state, reset, audit log', () => {
  let server: TestServer;
  let dns: DnsServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  const http = () => client(server.url);

  async function join(project: TestProject, role: 'OWNER' | 'ADMIN' | 'MEMBER'): Promise<Account> {
    const account = await createAccount(server.url);
    const res = await http().post(`/projects/${project.id}/members`, { email: account.email, role }, { cookie: project.owner.cookie });
    assert.equal(res.status, 201, res.text);
    return account;
  }

  test('GET /projects/{id}/setup-state follows onboarding step by step; any member reads it, strangers get 404', async () => {
    const project = await createProject(server.url);
    const state = async (cookie = project.owner.cookie) => {
      const res = await http().get(`/projects/${project.id}/setup-state`, { cookie });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    const done = async () => (await state()).steps.filter((s: any) => s.done).map((s: any) => s.id);
    const initial = await state();
    assert.deepEqual(
      initial.steps.map((s: any) => s.id),
      ['domainAdded', 'domainVerified', 'contactCreated', 'templateCreated', 'emailSent', 'eventTracked', 'campaignCreated', 'teamInvited'],
    );
    assert.deepEqual([initial.completed, initial.total, initial.done], [0, 8, false]);
    assert.ok(initial.steps.every((s: any) => typeof s.label === 'string' && s.label.length > 0));

    const name = uniqueDomain();
    const created = await project.api.post('/domains', { domain: name });
    assert.deepEqual(await done(), ['domainAdded']);
    publishRecords(dns, created.body);
    await project.api.get(`/domains/${created.body.id}/verify`);
    assert.deepEqual(await done(), ['domainAdded', 'domainVerified']);
    const from = `hi@${name}`;
    assert.equal((await project.api.post('/contacts', { email: uniqueEmail() })).status, 201);
    assert.equal((await project.api.post('/templates', { name: 't', subject: 's', body: '<p>b</p>', from })).status, 201);
    assert.equal((await project.api.post('/v1/send', { to: uniqueEmail(), from, subject: 's', body: '<p>b</p>' })).status, 200);
    assert.equal((await project.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'signed-up' })).status, 200);
    const campaign = await project.api.post('/campaigns', { name: 'c', subject: 's', body: '<p>b</p>', from, audienceType: 'ALL' });
    assert.equal(campaign.status, 201, campaign.text);
    const member = await join(project, 'MEMBER');
    const final = await state(member.cookie);
    assert.deepEqual([final.completed, final.done], [8, true]);

    const stranger = await createAccount(server.url);
    assert.equal((await http().get(`/projects/${project.id}/setup-state`, { cookie: stranger.cookie })).status, 404);
    assert.equal((await http().get(`/projects/${project.id}/setup-state`)).status, 401);
  });

  test('reset (OWNER, confirmed by name) wipes the data and keeps the project, its keys, members, domains and limits; audited', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const from = `hi@${domain.domain}`;
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    await http().put(`/users/@me/projects/${project.id}/billing-limits`, { transactional: 500 }, { cookie: project.owner.cookie });
    await project.api.post('/contacts', { email: uniqueEmail(), data: { plan: 'pro' } });
    await project.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'signed-up' });
    await project.api.post('/templates', { name: 't', subject: 's', body: '<p>b</p>', from });
    const sent = await project.api.post('/v1/send', { to: uniqueEmail(), from, subject: 's', body: '<p>b</p>' });
    await waitForStatus(project.api, sent.body.data.emails[0].email, ['DELIVERED']);

    const url = `/users/@me/projects/${project.id}/reset`;
    assert.equal((await http().post(url, { confirm: project.name }, { cookie: admin.cookie })).status, 403, 'ADMIN may not');
    assert.equal((await http().post(url, { confirm: project.name }, { cookie: member.cookie })).status, 403, 'MEMBER may not');
    const wrong = await http().post(url, { confirm: `${project.name} ` }, { cookie: project.owner.cookie });
    assert.equal(wrong.status, 400, wrong.text);
    assert.match(wrong.body.error.message, /does not match the project name/);
    assert.equal((await http().post(url, {}, { cookie: project.owner.cookie })).status, 422);
    assert.equal((await project.api.get('/contacts')).body.total, 3, 'a refused reset changes nothing');

    const reset = await http().post(url, { confirm: project.name }, { cookie: project.owner.cookie });
    assert.equal(reset.status, 200, reset.text);
    assert.equal(reset.body.success, true);
    assert.equal(reset.body.deleted.contacts, 3, 'created, tracked and sent to');
    assert.equal(reset.body.deleted.templates, 1);
    assert.equal(reset.body.deleted.emails, 1);
    assert.ok(reset.body.deleted.events >= 3, 'signed-up, email.sent, email.delivered');

    // The same keys still work, on an empty project.
    const contacts = await project.api.get('/contacts');
    assert.equal(contacts.status, 200);
    assert.equal(contacts.body.total, 0);
    assert.equal((await project.api.get('/events')).body.total, 0);
    assert.equal((await project.api.get('/templates')).body.total, 0);
    assert.equal((await project.api.get(`/emails/${sent.body.data.emails[0].email}`)).status, 404);
    assert.equal((await project.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'again' })).status, 200, 'the public key too');
    const members = await http().get(`/projects/${project.id}/members`, { cookie: project.owner.cookie });
    assert.deepEqual(members.body.data.map((m: any) => m.userId).sort(), [project.owner.id, admin.id, member.id].sort());
    const domains = await project.api.get(`/domains/project/${project.id}`);
    assert.deepEqual(JSON.stringify(domains.body).includes(domain.domain), true, 'the verified domain stays');
    assert.equal((await project.api.post('/v1/send', { to: uniqueEmail(), from, subject: 's', body: '<p>b</p>' })).status, 200, 'and can send at once');
    const limits = await http().get(`/users/@me/projects/${project.id}/billing-limits`, { cookie: project.owner.cookie });
    assert.equal(limits.body.transactional, 500);

    const audit = await http().get(`/projects/${project.id}/audit-log?action=project.reset`, { cookie: admin.cookie });
    assert.equal(audit.body.data.length, 1);
    assert.equal(audit.body.data[0].actor.id, project.owner.id);
    assert.equal(audit.body.data[0].actor.email, project.owner.email);
    assert.equal(audit.body.data[0].details.deleted.contacts, 3);
  });

  test('the audit log records keys rotated, members changed, renames, disabling and limits; OWNER and ADMIN read it, newest first', async () => {
    const project = await createProject(server.url);
    const owner = { cookie: project.owner.cookie };
    const admin = await join(project, 'ADMIN');
    const member = await join(project, 'MEMBER');
    assert.equal((await http().post(`/users/@me/projects/${project.id}/regenerate-keys`, undefined, { cookie: admin.cookie })).status, 200);
    assert.equal((await http().patch(`/projects/${project.id}/members/${member.id}`, { role: 'ADMIN' }, owner)).status, 200);
    assert.equal((await http().delete(`/projects/${project.id}/members/${member.id}`, undefined, owner)).status, 204);
    assert.equal((await http().patch(`/users/@me/projects/${project.id}`, { name: 'Renamed' }, owner)).status, 200);
    assert.equal((await http().patch(`/users/@me/projects/${project.id}`, { disabled: true }, { cookie: admin.cookie })).status, 200);
    assert.equal((await http().patch(`/users/@me/projects/${project.id}`, { disabled: false }, { cookie: admin.cookie })).status, 200, 'a manual disable is lifted by ADMIN too');
    assert.equal((await http().put(`/users/@me/projects/${project.id}/billing-limits`, { campaigns: 10 }, owner)).status, 200);

    const log = await http().get(`/projects/${project.id}/audit-log`, owner);
    assert.equal(log.status, 200, log.text);
    assert.deepEqual(
      log.body.data.map((e: any) => e.action),
      [
        'billing.limits_changed',
        'project.enabled',
        'project.disabled',
        'project.renamed',
        'member.removed',
        'member.role_changed',
        'project.keys_rotated',
        'member.added',
        'member.added',
      ],
    );
    const [limits, , , renamed, removed, changed, rotated, addedMember] = log.body.data;
    assert.deepEqual(Object.keys(limits).sort(), ['action', 'actor', 'createdAt', 'details', 'id']);
    assert.deepEqual(limits.details.after, { transactional: null, campaigns: 10, workflows: null });
    assert.deepEqual(renamed.details, { from: project.name, to: 'Renamed' });
    assert.deepEqual([removed.details.userId, removed.details.role, removed.details.left], [member.id, 'ADMIN', false]);
    assert.deepEqual([changed.details.from, changed.details.to], ['MEMBER', 'ADMIN']);
    assert.deepEqual(rotated.actor, { id: admin.id, email: admin.email });
    assert.equal(addedMember.details.email, member.email);
    assert.ok(!JSON.stringify(log.body).includes('sk_'), 'no key material in the log');

    const first = await http().get(`/projects/${project.id}/audit-log?limit=4`, { cookie: admin.cookie });
    assert.equal(first.body.hasMore, true);
    const second = await http().get(`/projects/${project.id}/audit-log?limit=5&cursor=${encodeURIComponent(first.body.cursor)}`, owner);
    assert.deepEqual(
      [...first.body.data, ...second.body.data].map((e: any) => e.id),
      log.body.data.map((e: any) => e.id),
    );
    assert.equal(second.body.hasMore, false);

    const again = await join(project, 'MEMBER');
    assert.equal((await http().get(`/projects/${project.id}/audit-log`, { cookie: again.cookie })).status, 403, 'MEMBER cannot read it');
    const stranger = await createAccount(server.url);
    assert.equal((await http().get(`/projects/${project.id}/audit-log`, { cookie: stranger.cookie })).status, 404);
    assert.equal((await http().get(`/projects/${project.id}/audit-log`)).status, 401);
  });

  test('DELETE of a project (OWNER only) removes it with its data; PATCH and DELETE refuse a MEMBER', async () => {
    const project = await createProject(server.url);
    const member = await join(project, 'MEMBER');
    const admin = await join(project, 'ADMIN');
    assert.equal((await http().patch(`/users/@me/projects/${project.id}`, { name: 'x' }, { cookie: member.cookie })).status, 403);
    assert.equal((await http().delete(`/users/@me/projects/${project.id}`, undefined, { cookie: admin.cookie })).status, 403);
    assert.equal((await http().delete(`/users/@me/projects/${project.id}`, undefined, { cookie: project.owner.cookie })).status, 204);
    assert.equal((await project.api.get('/contacts')).status, 401);
    assert.equal((await http().get(`/projects/${project.id}/audit-log`, { cookie: project.owner.cookie })).status, 404);
  });
});
