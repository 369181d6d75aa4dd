import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { type Receiver, startReceiver } from '../kit/receiver.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

// Realistic event data (contact data values are flat): non-Latin scripts, a list, a long line.
const ORDER = {
  orderId: 'ord_8842',
  items: '2 × 龍井茶 (Longjing), 250 g\n1 × Чашка керамическая\n1 × كوب شاي زجاجي',
  note: 'Livraison après 18 h — merci ! '.repeat(12),
  amount: 48.5,
  currency: 'EUR',
  gift: true,
};

async function track(project: TestProject, email: string, event: string, extra: Record<string, unknown> = {}) {
  const res = await project.publicApi.post('/v1/track', { email, event, ...extra });
  assert.equal(res.status, 200, res.text);
  return res.body.data as { contact: string; event: string };
}

describe('webhook endpoints (docs/decisions/webhook-endpoints.md): API, signature, filters, roles', () => {
  let server: TestServer;
  let receiver: Receiver;
  before(async () => {
    server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    receiver = await startReceiver();
  });
  after(async () => {
    await server.close();
    await receiver.close();
  });

  test('create answers the secret once; list and get never show it; PATCH and DELETE', async () => {
    const project = await createProject(server.url);
    const created = await project.api.post('/webhook-endpoints', { url: receiver.url('/crud'), events: ['email.bounced', 'contact.*'], description: 'CRM sync' });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.secret, /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
    assert.ok(Buffer.from(created.body.secret.slice(6), 'base64').length >= 24);
    assert.deepEqual(
      { url: created.body.url, events: created.body.events, description: created.body.description, enabled: created.body.enabled },
      { url: receiver.url('/crud'), events: ['email.bounced', 'contact.*'], description: 'CRM sync', enabled: true },
    );
    const id = created.body.id;

    const list = await project.api.get('/webhook-endpoints');
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((e: { id: string }) => e.id),
      [id],
    );
    assert.ok(!('secret' in list.body.data[0]));
    const one = await project.dashboard.get(`/webhook-endpoints/${id}`);
    assert.equal(one.status, 200);
    assert.ok(!('secret' in one.body));

    const patched = await project.api.patch(`/webhook-endpoints/${id}`, { events: ['*'], description: null, enabled: false });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual([patched.body.events, patched.body.description, patched.body.enabled], [['*'], null, false]);
    assert.equal(patched.body.url, receiver.url('/crud'));

    const bad = await project.api.post('/webhook-endpoints', { url: 'ftp://example.com/x', events: ['email.*'] });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.errors[0].field, 'url');
    for (const events of [[], ['email*'], ['*.bounced']]) {
      const res = await project.api.post('/webhook-endpoints', { url: receiver.url(), events });
      assert.equal(res.status, 422, `events ${JSON.stringify(events)}: ${res.text}`);
    }

    assert.equal((await project.api.delete(`/webhook-endpoints/${id}`)).status, 204);
    assert.equal((await project.api.get(`/webhook-endpoints/${id}`)).status, 404);
    assert.equal((await project.api.delete(`/webhook-endpoints/${id}`)).status, 404);
  });

  test('a delivery carries the Standard Webhooks headers and a body verified by the standardwebhooks package', async () => {
    const project = await createProject(server.url);
    const endpoint = (await project.api.post('/webhook-endpoints', { url: receiver.url('/signed'), events: ['order.placed'] })).body;
    const email = uniqueEmail('buyer');
    const tracked = await track(project, email, 'order.placed', { data: ORDER });
    const started = Date.now();
    await receiver.waitFor(1, '/signed');
    assert.ok(Date.now() - started < 10_000, 'the first delivery leaves within seconds of the event');

    const delivery = receiver.received.find((r) => r.path === '/signed')!;
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.match(String(delivery.headers['webhook-id']), /^[0-9a-f-]{36}$/);
    const sentAt = Number(delivery.headers['webhook-timestamp']);
    assert.ok(Math.abs(sentAt - Date.now() / 1000) < 60);
    const verified = new Webhook(endpoint.secret).verify(delivery.body, delivery.headers as Record<string, string>) as any;
    assert.equal(verified.type, 'order.placed');
    assert.ok(!Number.isNaN(Date.parse(verified.timestamp)));
    assert.deepEqual(verified.data, { id: tracked.event, contact: { id: tracked.contact, email }, data: ORDER });

    const tampered = { ...(delivery.headers as Record<string, string>), 'webhook-id': 'msg_other' };
    assert.throws(() => new Webhook(endpoint.secret).verify(delivery.body, tampered));
    const otherSecret = (await project.api.post('/webhook-endpoints', { url: receiver.url('/other'), events: ['none.such'] })).body.secret;
    assert.throws(() => new Webhook(otherSecret).verify(delivery.body, delivery.headers as Record<string, string>));
  });

  test('event filters: exact names, families and * (service events included)', async () => {
    const project = await createProject(server.url);
    const add = async (path: string, events: string[]) => assert.equal((await project.api.post('/webhook-endpoints', { url: receiver.url(path), events })).status, 201);
    await add('/f-exact', ['order.placed']);
    await add('/f-contact', ['contact.*']);
    await add('/f-email', ['email.*']);
    await add('/f-all', ['*']);
    await add('/f-two', ['order.refunded', 'contact.unsubscribed']);

    const email = uniqueEmail('filters');
    await track(project, email, 'order.placed', { data: ORDER });
    await track(project, email, 'order.refunded', { data: { orderId: 'ord_8842' } });
    // A change of subscription emits contact.unsubscribed with the tracked event.
    await track(project, email, 'newsletter.opt-out', { subscribed: false });

    await receiver.waitFor(4, '/f-all');
    await receiver.waitFor(2, '/f-two');
    await receiver.waitFor(1, '/f-contact');
    await receiver.waitFor(1, '/f-exact');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const types = (path: string) =>
      receiver.received
        .filter((r) => r.path === path)
        .map((r) => JSON.parse(r.body).type)
        .sort();
    assert.deepEqual(types('/f-exact'), ['order.placed']);
    assert.deepEqual(types('/f-contact'), ['contact.unsubscribed']);
    assert.deepEqual(types('/f-email'), []);
    assert.deepEqual(types('/f-all'), ['contact.unsubscribed', 'newsletter.opt-out', 'order.placed', 'order.refunded']);
    assert.deepEqual(types('/f-two'), ['contact.unsubscribed', 'order.refunded']);
  });

  test('a MEMBER reads endpoints and their log but cannot change, rotate or replay; ADMIN can', async () => {
    const project = await createProject(server.url);
    const endpoint = (await project.api.post('/webhook-endpoints', { url: receiver.url('/roles'), events: ['*'] })).body;
    const member = await createAccount(server.url);
    const admin = await createAccount(server.url);
    for (const [account, role] of [
      [member, 'MEMBER'],
      [admin, 'ADMIN'],
    ] as const) {
      const added = await project.dashboard.post(`/projects/${project.id}/members`, { email: account.email, role });
      assert.equal(added.status, 201, added.text);
    }
    const asMember = client(server.url, { cookie: member.cookie, projectId: project.id });
    assert.equal((await asMember.get('/webhook-endpoints')).status, 200);
    assert.equal((await asMember.get(`/webhook-endpoints/${endpoint.id}`)).status, 200);
    assert.equal((await asMember.get(`/webhook-endpoints/${endpoint.id}/messages`)).status, 200);
    const refused = [
      await asMember.post('/webhook-endpoints', { url: receiver.url('/m'), events: ['*'] }),
      await asMember.patch(`/webhook-endpoints/${endpoint.id}`, { enabled: false }),
      await asMember.post(`/webhook-endpoints/${endpoint.id}/rotate-secret`),
      await asMember.post(`/webhook-endpoints/${endpoint.id}/replay`, { since: new Date(Date.now() - 3600_000).toISOString() }),
      await asMember.post(`/webhook-endpoints/${endpoint.id}/messages/${crypto.randomUUID()}/replay`),
      await asMember.delete(`/webhook-endpoints/${endpoint.id}`),
    ];
    assert.deepEqual(
      refused.map((r) => r.status),
      [403, 403, 403, 403, 403, 403],
    );
    assert.equal((await project.api.get(`/webhook-endpoints/${endpoint.id}`)).body.enabled, true);

    const asAdmin = client(server.url, { cookie: admin.cookie, projectId: project.id });
    const patched = await asAdmin.patch(`/webhook-endpoints/${endpoint.id}`, { description: 'by the admin' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.description, 'by the admin');
  });

  test("projects are isolated: another project's endpoint is a 404 and hears none of these events", async () => {
    const alpha = await createProject(server.url);
    const beta = await createProject(server.url);
    const alphaEndpoint = (await alpha.api.post('/webhook-endpoints', { url: receiver.url('/alpha'), events: ['*'] })).body;
    await beta.api.post('/webhook-endpoints', { url: receiver.url('/beta'), events: ['*'] });

    for (const res of [
      await beta.api.get(`/webhook-endpoints/${alphaEndpoint.id}`),
      await beta.api.patch(`/webhook-endpoints/${alphaEndpoint.id}`, { enabled: false }),
      await beta.api.post(`/webhook-endpoints/${alphaEndpoint.id}/rotate-secret`),
      await beta.api.get(`/webhook-endpoints/${alphaEndpoint.id}/messages`),
      await beta.api.post(`/webhook-endpoints/${alphaEndpoint.id}/replay`, { since: new Date(0).toISOString() }),
      await beta.api.delete(`/webhook-endpoints/${alphaEndpoint.id}`),
    ]) {
      assert.equal(res.status, 404, res.text);
    }
    assert.deepEqual(
      (await beta.api.get('/webhook-endpoints')).body.data.map((e: { url: string }) => e.url),
      [receiver.url('/beta')],
    );

    await track(alpha, uniqueEmail('alpha'), 'order.placed', { data: ORDER });
    await receiver.waitFor(1, '/alpha');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(receiver.received.filter((r) => r.path === '/beta').length, 0);
    const log = await alpha.api.get(`/webhook-endpoints/${alphaEndpoint.id}/messages`);
    assert.equal(log.body.total, 1);
  });
});
