import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Account, createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { buildWorkflow, enable, waitForExecution } from '../kit/workflows.ts';

describe('Billing limits, consumption, invoices and payment-provider endpoints', () => {
  let server: TestServer;
  let dns: DnsServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  const http = () => client(server.url);
  const base = (project: TestProject) => `/users/@me/projects/${project.id}`;

  async function join(project: TestProject, role: 'ADMIN' | 'MEMBER'): Promise<Account> {
    const account = await createAccount(server.url);
    const res = await http().post(`/projects/${project.id}/members`, { email: account.email, role }, { cookie: project.owner.cookie });
    assert.equal(res.status, 201, res.text);
    return account;
  }

  async function sender() {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const from = `hello@${domain.domain}`;
    const send = (to: string | string[]) => project.api.post('/v1/send', { to, from, subject: 'Hi', body: '<p>Hi</p>' });
    const setLimits = async (limits: Record<string, number | null>) => {
      const res = await http().put(`${base(project)}/billing-limits`, limits, { cookie: project.owner.cookie });
      assert.equal(res.status, 200, res.text);
      return res.body;
    };
    return { project, send, setLimits, from };
  }

  test('GET/PUT billing-limits: null is unlimited; keys left out keep their value; MEMBER reads but cannot change; strangers get 404', async () => {
    const project = await createProject(server.url);
    const owner = { cookie: project.owner.cookie };
    const initial = await http().get(`${base(project)}/billing-limits`, owner);
    assert.equal(initial.status, 200, initial.text);
    assert.deepEqual(initial.body, { transactional: null, campaigns: null, workflows: null });
    const set = await http().put(`${base(project)}/billing-limits`, { transactional: 1000, campaigns: 50_000 }, owner);
    assert.deepEqual(set.body, { transactional: 1000, campaigns: 50_000, workflows: null });
    const partial = await http().put(`${base(project)}/billing-limits`, { campaigns: null, workflows: 0 }, owner);
    assert.deepEqual(partial.body, { transactional: 1000, campaigns: null, workflows: 0 });

    const admin = await join(project, 'ADMIN');
    assert.equal((await http().put(`${base(project)}/billing-limits`, { workflows: 10 }, { cookie: admin.cookie })).status, 200);
    const member = await join(project, 'MEMBER');
    assert.deepEqual((await http().get(`${base(project)}/billing-limits`, { cookie: member.cookie })).body.workflows, 10);
    const refused = await http().put(`${base(project)}/billing-limits`, { workflows: null }, { cookie: member.cookie });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, 'FORBIDDEN');
    const stranger = await createAccount(server.url);
    assert.equal((await http().get(`${base(project)}/billing-limits`, { cookie: stranger.cookie })).status, 404);
    assert.equal((await http().get(`${base(project)}/billing-limits`)).status, 401);

    for (const bad of [{ transactional: -1 }, { transactional: 1.5 }, { transactional: 'many' }]) {
      const res = await http().put(`${base(project)}/billing-limits`, bad, owner);
      assert.equal(res.status, 422, JSON.stringify(bad));
    }
  });

  test('a limit of N lets the Nth send through and refuses the N+1th with 403 BILLING_LIMIT_EXCEEDED; consumption follows', async () => {
    const { project, send, setLimits } = await sender();
    await setLimits({ transactional: 3 });
    for (let i = 1; i <= 3; i++) assert.equal((await send(uniqueEmail(`ok${i}`))).status, 200, `send ${i} of 3`);
    const over = await send(uniqueEmail('over'));
    assert.equal(over.status, 403, over.text);
    assert.equal(over.body.error.code, 'BILLING_LIMIT_EXCEEDED');
    assert.match(over.body.error.message, /transactional limit: 3 of 3 used, 1 more requested/);
    assert.deepEqual(over.body.error.details, { category: 'transactional', limit: 3, used: 3, requested: 1 });

    const consumption = await http().get(`${base(project)}/billing-consumption`, { cookie: project.owner.cookie });
    assert.equal(consumption.status, 200, consumption.text);
    assert.deepEqual(consumption.body.transactional, { used: 3, limit: 3, remaining: 0 });
    assert.deepEqual(consumption.body.campaigns, { used: 0, limit: null, remaining: null });
    const start = new Date(consumption.body.periodStart);
    assert.equal(start.getUTCDate(), 1);
    assert.equal(start.getUTCHours(), 0);
    assert.ok(new Date(consumption.body.periodEnd) > new Date());

    // A send of several recipients is all or nothing: nothing is recorded when it would cross the cap.
    await setLimits({ transactional: 5 });
    const many = await send([uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')]);
    assert.equal(many.status, 403, many.text);
    assert.deepEqual(many.body.error.details, { category: 'transactional', limit: 5, used: 3, requested: 3 });
    assert.equal((await send([uniqueEmail('d'), uniqueEmail('e')])).status, 200, 'exactly up to the cap');
    assert.equal((await send(uniqueEmail('f'))).status, 403);

    await setLimits({ transactional: null });
    assert.equal((await send(uniqueEmail('unlimited'))).status, 200, 'null: unlimited');
    const after = await http().get(`${base(project)}/billing-consumption`, { cookie: project.owner.cookie });
    assert.deepEqual(after.body.transactional, { used: 6, limit: null, remaining: null });
  });

  test('a cap set after sends this month counts them; concurrent sends never pass the cap together', async () => {
    const { project, send, setLimits } = await sender();
    for (let i = 0; i < 2; i++) assert.equal((await send(uniqueEmail('before'))).status, 200);
    await setLimits({ transactional: 7 });
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(uniqueEmail(`race${i}`))));
    const statuses = answers.map((res) => res.status).sort();
    assert.deepEqual(statuses, [...Array(5).fill(200), ...Array(5).fill(403)], 'only 5 of 10 fit under 7 with 2 already sent');
    const consumption = await http().get(`${base(project)}/billing-consumption`, { cookie: project.owner.cookie });
    assert.deepEqual(consumption.body.transactional, { used: 7, limit: 7, remaining: 0 });
    await setLimits({ transactional: 0 });
    assert.equal((await send(uniqueEmail('zero'))).status, 403, 'a cap of 0 refuses every send');
  });

  test('campaigns: sending one whose audience exceeds the monthly cap is refused with 403; the audience counts when it fits', async () => {
    const { project, setLimits, from } = await sender();
    for (let i = 0; i < 3; i++) assert.equal((await project.api.post('/contacts', { email: uniqueEmail('reader'), subscribed: true })).status, 201);
    const created = await project.api.post('/campaigns', { name: 'News', subject: 'News', body: '<p>News</p>', from, audienceType: 'ALL' });
    assert.equal(created.status, 201, created.text);
    await setLimits({ campaigns: 2 });
    const refused = await project.api.post(`/campaigns/${created.body.data.id}/send`, {});
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'BILLING_LIMIT_EXCEEDED');
    assert.deepEqual(refused.body.error.details, { category: 'campaigns', limit: 2, used: 0, requested: 3 });
    assert.equal((await project.api.get(`/campaigns/${created.body.data.id}`)).body.data.status, 'DRAFT', 'nothing changed');
    await setLimits({ campaigns: 3 });
    const sent = await project.api.post(`/campaigns/${created.body.data.id}/send`, {});
    assert.equal(sent.status, 200, sent.text);
    const duplicate = await project.api.post(`/campaigns/${created.body.data.id}/duplicate`, {});
    assert.equal(duplicate.status, 201, duplicate.text);
    const again = await project.api.post(`/campaigns/${duplicate.body.data.id}/send`, {});
    assert.equal(again.status, 403, 'the first campaign used the whole month');
  });

  test('workflows: a SEND_EMAIL step over the cap fails the execution, naming the limit', async () => {
    const { project, setLimits, from } = await sender();
    const template = await project.api.post('/templates', { name: 't', subject: 'Welcome', body: '<p>Hi</p>', from, type: 'TRANSACTIONAL' });
    assert.equal(template.status, 201, template.text);
    const flow = await buildWorkflow(project.api, { eventName: 'joined', allowReentry: true }, [{ type: 'SEND_EMAIL', config: { templateId: template.body.id } }]);
    await enable(project.api, flow.id);
    await setLimits({ workflows: 1 });
    const first = await project.publicApi.post('/v1/track', { email: uniqueEmail('one'), event: 'joined' });
    assert.equal((await waitForExecution(project.api, flow.id, first.body.data.contact, ['COMPLETED'])).status, 'COMPLETED');
    const second = await project.publicApi.post('/v1/track', { email: uniqueEmail('two'), event: 'joined' });
    const failed = await waitForExecution(project.api, flow.id, second.body.data.contact, ['FAILED', 'COMPLETED']);
    assert.equal(failed.status, 'FAILED');
    assert.match(failed.error, /monthly workflows limit: 1 of 1 used/);
    const consumption = await http().get(`${base(project)}/billing-consumption`, { cookie: project.owner.cookie });
    assert.deepEqual(consumption.body.workflows, { used: 1, limit: 1, remaining: 0 });
  });

  test('invoices are an empty list; checkout and billing-portal answer 501 without a payment provider; MEMBER gets 403', async () => {
    const project = await createProject(server.url);
    const owner = { cookie: project.owner.cookie };
    const invoices = await http().get(`${base(project)}/billing-invoices`, owner);
    assert.equal(invoices.status, 200);
    assert.deepEqual(invoices.body, { data: [] });
    for (const path of ['checkout', 'billing-portal']) {
      const res = await http().post(`${base(project)}/${path}`, undefined, owner);
      assert.equal(res.status, 501, res.text);
      assert.equal(res.body.error.code, 'NOT_IMPLEMENTED');
      assert.match(res.body.error.message, /No payment provider is configured/);
    }
    const admin = await join(project, 'ADMIN');
    assert.equal((await http().post(`${base(project)}/checkout`, undefined, { cookie: admin.cookie })).status, 501);
    const member = await join(project, 'MEMBER');
    assert.equal((await http().get(`${base(project)}/billing-consumption`, { cookie: member.cookie })).status, 200, 'any member reads consumption');
    for (const [method, path] of [
      ['GET', 'billing-invoices'],
      ['POST', 'checkout'],
      ['POST', 'billing-portal'],
    ] as const) {
      const res = await http().request(method, `${base(project)}/${path}`, undefined, { cookie: member.cookie });
      assert.equal(res.status, 403, `${method} ${path}`);
    }
  });
});
