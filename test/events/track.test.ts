import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('POST /v1/track and POST /events/track', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('tracks an event, creating a subscribed contact and storing its data', async () => {
    const project = await createProject(server.url);
    const email = uniqueEmail('Track');
    const res = await project.publicApi.post('/v1/track', {
      email: ` ${email.toUpperCase()} `,
      event: 'signup',
      data: { plan: 'pro', seats: 2, coupon: { value: 'WELCOME', persistent: false }, gone: null, blank: '', email: 'x@y.z', unsubscribeUrl: 'u' },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.success, true);
    assert.deepEqual(Object.keys(res.body.data).sort(), ['contact', 'event', 'timestamp']);
    assert.ok(!Number.isNaN(Date.parse(res.body.data.timestamp)));

    const contact = await project.api.get(`/contacts/${res.body.data.contact}`);
    assert.equal(contact.body.email, email.toLowerCase());
    assert.equal(contact.body.subscribed, true, 'new contacts via track are subscribed');
    assert.deepEqual(contact.body.data, { plan: 'pro', seats: 2 }, 'one-off values and reserved keys are not stored');

    const events = await project.api.get(`/events?contactId=${contact.body.id}`);
    assert.equal(events.body.total, 1);
    const [event] = events.body.data;
    assert.equal(event.id, res.body.data.event);
    assert.equal(event.name, 'signup');
    assert.equal(event.email, email.toLowerCase());
    assert.equal(event.emailId, null);
    assert.deepEqual(event.data, { plan: 'pro', seats: 2, coupon: 'WELCOME', gone: null, blank: '' }, 'request data, one-off values resolved, reserved keys dropped');
  });

  test('existing contacts keep subscribed unless passed; data follows the write rules; re-tracking adds events', async () => {
    const project = await createProject(server.url);
    const email = uniqueEmail();
    await project.api.post('/contacts', { email, subscribed: false, data: { a: 1, b: 2 } });
    const first = await project.publicApi.post('/v1/track', { email, event: 'visit', data: { a: null, b: '', c: true } });
    const second = await project.publicApi.post('/v1/track', { email, event: 'visit' });
    assert.equal(second.status, 200);
    assert.equal(first.body.data.contact, second.body.data.contact);
    assert.notEqual(first.body.data.event, second.body.data.event);
    const contact = await project.api.get(`/contacts/${first.body.data.contact}`);
    assert.equal(contact.body.subscribed, false);
    assert.deepEqual(contact.body.data, { b: 2, c: true });
    assert.equal((await project.api.get('/events?name=visit')).body.total, 2);
    const subscribeNew = await project.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'visit', subscribed: false });
    assert.equal((await project.api.get(`/contacts/${subscribeNew.body.data.contact}`)).body.subscribed, false);
  });

  test("a burst of concurrent tracks (shared writes) keeps every request's own result and every rule", async () => {
    const [first, second] = [await createProject(server.url), await createProject(server.url)];
    const emails = Array.from({ length: 30 }, () => uniqueEmail('burst'));
    // Seed half as unsubscribed, so that `subscribed: true` in the burst is a change for them.
    for (const email of emails.slice(0, 15)) await first.api.post('/contacts', { email, subscribed: false });
    // 30 contacts of one project, each tracked 4 times at once (same email in one burst), plus
    // the same addresses in a second project: 240 requests in flight together.
    const requests = emails.flatMap((email, i) => [
      ...[0, 1, 2, 3].map((n) =>
        first.publicApi.post('/v1/track', { email, event: `step-${n}`, data: { [`k${n}`]: n, shared: 'x' }, ...(n === 0 && i < 15 ? { subscribed: true } : {}) }),
      ),
      ...[0, 1, 2, 3].map((n) => second.publicApi.post('/v1/track', { email, event: 'other', data: { n } })),
    ]);
    const responses = await Promise.all(requests);
    for (const res of responses) assert.equal(res.status, 200, res.text);
    assert.equal(new Set(responses.map((res) => res.body.data.event)).size, responses.length, 'an event id per request');

    for (const [i, email] of emails.entries()) {
      const mine = responses.slice(i * 8, i * 8 + 4).map((res) => res.body.data.contact);
      const theirs = responses.slice(i * 8 + 4, i * 8 + 8).map((res) => res.body.data.contact);
      assert.equal(new Set(mine).size, 1, `${email}: one contact for its four tracks`);
      assert.equal(new Set(theirs).size, 1);
      assert.notEqual(mine[0], theirs[0], 'each project has its own contact');
      const contact = await first.api.get(`/contacts/${mine[0]}`);
      assert.deepEqual(contact.body.data, { k0: 0, k1: 1, k2: 2, k3: 3, shared: 'x' }, 'every write merged');
      assert.equal(contact.body.subscribed, true);
      const events = await first.api.get(`/events?contactId=${mine[0]}`);
      const names = events.body.data.map((event: { name: string }) => event.name).sort();
      const expected = ['step-0', 'step-1', 'step-2', 'step-3', ...(i < 15 ? ['contact.subscribed'] : [])].sort();
      assert.deepEqual(names, expected, `${email}: its own events, and one subscription event only where subscribed changed`);
      assert.equal((await second.api.get(`/contacts/${mine[0]}`)).status, 404, 'not visible from the other project');
    }
    const other = await second.api.get('/events?name=other&limit=100');
    assert.equal(other.body.total, 120);
  });

  test('reserved event names are a 422 with field code reserved_event', async () => {
    const project = await createProject(server.url);
    for (const event of ['email.sent', 'email.anything', 'EMAIL.Opened', 'contact.subscribed', 'contact.unsubscribed', 'segment.vip.entry', 'segment.big-spenders.exit']) {
      const res = await project.publicApi.post('/v1/track', { email: uniqueEmail(), event });
      assert.equal(res.status, 422, event);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.equal(res.body.error.message, 'Request validation failed');
      assert.deepEqual(
        res.body.error.errors.map((e: any) => [e.field, e.code]),
        [['event', 'reserved_event']],
        event,
      );
    }
    assert.equal((await project.api.get('/contacts')).body.total, 0, 'nothing was written');
    for (const event of ['emails.sent', 'contact.created', 'segment.vip.entered', 'segment.entry', 'my.email.sent']) {
      const res = await project.publicApi.post('/v1/track', { email: uniqueEmail(), event });
      assert.equal(res.status, 200, `${event} is not reserved`);
    }
  });

  test('bad bodies are 422 with dot paths', async () => {
    const project = await createProject(server.url);
    const empty = await project.publicApi.post('/v1/track', {});
    assert.equal(empty.status, 422);
    assert.deepEqual(empty.body.error.errors.map((e: any) => [e.field, e.code, e.received]).sort(), [
      ['email', 'invalid_type', 'undefined'],
      ['event', 'invalid_type', 'undefined'],
    ]);
    const wrong = await project.publicApi.post('/v1/track', { email: 'nope', event: 7, subscribed: 'yes', data: [1] });
    assert.equal(wrong.status, 422);
    assert.deepEqual(wrong.body.error.errors.map((e: any) => e.field).sort(), ['data', 'email', 'event', 'subscribed']);
    const badData = await project.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'x', data: { deep: { a: 1 }, list: [] } });
    assert.equal(badData.status, 422);
    assert.deepEqual(badData.body.error.errors.map((e: any) => e.field).sort(), ['data.deep', 'data.list']);
    const blank = await project.publicApi.post('/v1/track', { email: uniqueEmail(), event: '   ' });
    assert.equal(blank.status, 422);
    const malformed = await project.publicApi.post('/v1/track', undefined, { rawBody: '{"email":', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
  });

  test('keys: the secret key on /v1/track is a 401 INVALID_API_KEY; /events/track takes a session only', async () => {
    const project = await createProject(server.url);
    const body = { email: uniqueEmail(), event: 'signup' };
    for (const res of [
      await project.api.post('/v1/track', body),
      await client(server.url).post('/v1/track', body),
      await client(server.url, { key: 'pk_nope' }).post('/v1/track', body),
    ]) {
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_API_KEY');
    }
    const viaSession = await project.dashboard.post('/events/track', body);
    assert.equal(viaSession.status, 200, viaSession.text);
    assert.equal(viaSession.body.success, true);
    assert.equal((await project.api.post('/events/track', body)).status, 401);
    assert.equal((await project.publicApi.post('/events/track', body)).status, 401);
    const reserved = await project.dashboard.post('/events/track', { ...body, event: 'email.sent' });
    assert.equal(reserved.status, 422);
    assert.equal(reserved.body.error.errors[0].code, 'reserved_event');
  });
});
