import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { segmentSlug } from '../../src/segments/segments.service.ts';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

async function upsert(project: TestProject, email: string, data: Record<string, unknown>) {
  const res = await project.api.post('/contacts', { email, data });
  assert.ok(res.status === 200 || res.status === 201, res.text);
  return res.body.id as string;
}

async function createSegment(project: TestProject, body: Record<string, unknown>) {
  const res = await project.api.post('/segments', body);
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** The events of one name, as [email, data] sorted by email. */
async function eventsNamed(project: TestProject, name: string) {
  const res = await project.api.get(`/events?name=${encodeURIComponent(name)}&limit=100`);
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((e: any) => [e.email, e.data]).sort((a: any, b: any) => a[0].localeCompare(b[0]));
}

test('the membership slug (docs/decisions/segments.md)', () => {
  assert.equal(segmentSlug('VIP Customers!'), 'vip-customers');
  assert.equal(segmentSlug('  Summer -- Promo 2024 '), 'summer-promo-2024');
  assert.equal(segmentSlug('a_b.c'), 'a-b-c');
});

describe('compute and refresh (docs/decisions/segments.md)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('compute emits segment.<slug>.entry / .exit for the difference, stores it, and answers { entered, exited, total }', async () => {
    const project = await createProject(server.url);
    await upsert(project, 'a@x.test', { plan: 'pro' });
    await upsert(project, 'b@x.test', { plan: 'pro' });
    await upsert(project, 'c@x.test', { plan: 'free' });
    const segment = await createSegment(project, { name: 'VIP Customers!', condition: pro, trackMembership: true });
    const data = { segmentId: segment.id, segmentName: 'VIP Customers!' };
    const compute = () => project.api.post(`/segments/${segment.id}/compute`);

    const first = await compute();
    assert.equal(first.status, 200, first.text);
    assert.deepEqual(first.body, { entered: 2, exited: 0, total: 2 });
    assert.deepEqual(await eventsNamed(project, 'segment.vip-customers.entry'), [
      ['a@x.test', data],
      ['b@x.test', data],
    ]);

    // Nothing changed: nothing emitted.
    assert.deepEqual((await compute()).body, { entered: 0, exited: 0, total: 2 });
    assert.equal((await eventsNamed(project, 'segment.vip-customers.entry')).length, 2);

    await upsert(project, 'b@x.test', { plan: 'free' });
    await upsert(project, 'c@x.test', { plan: 'pro' });
    await upsert(project, 'd@x.test', { plan: 'pro' });
    assert.deepEqual((await compute()).body, { entered: 2, exited: 1, total: 3 });
    assert.deepEqual(await eventsNamed(project, 'segment.vip-customers.exit'), [['b@x.test', data]]);
    assert.deepEqual(
      (await eventsNamed(project, 'segment.vip-customers.entry')).map((e: any) => e[0]),
      ['a@x.test', 'b@x.test', 'c@x.test', 'd@x.test'],
    );
    assert.equal((await project.api.get(`/segments/${segment.id}`)).body.memberCount, 3);

    // A member deleted is simply gone (no exit event for a contact that no longer exists).
    const contacts = (await project.api.get(`/segments/${segment.id}/contacts`)).body.data;
    const d = contacts.find((c: any) => c.email === 'd@x.test');
    assert.equal((await project.api.delete(`/contacts/${d.id}`)).status, 204);
    assert.deepEqual((await compute()).body, { entered: 0, exited: 0, total: 2 });

    // Renamed: new events carry the new slug and name.
    await project.api.patch(`/segments/${segment.id}`, { name: 'Gold' });
    await upsert(project, 'e@x.test', { plan: 'pro' });
    assert.deepEqual((await compute()).body, { entered: 1, exited: 0, total: 3 });
    assert.deepEqual(await eventsNamed(project, 'segment.gold.entry'), [['e@x.test', { segmentId: segment.id, segmentName: 'Gold' }]]);
  });

  test('refresh recounts only: no events, no membership writes', async () => {
    const project = await createProject(server.url);
    await upsert(project, 'a@x.test', { plan: 'pro' });
    const segment = await createSegment(project, { name: 'Tracked', condition: pro, trackMembership: true });
    assert.deepEqual((await project.api.post(`/segments/${segment.id}/compute`)).body, { entered: 1, exited: 0, total: 1 });
    const eventsBefore = (await project.api.get('/events')).body.total;

    await upsert(project, 'b@x.test', { plan: 'pro' });
    await upsert(project, 'c@x.test', { plan: 'pro' });
    assert.equal((await project.api.get(`/segments/${segment.id}`)).body.memberCount, 1, 'cached, not computed per request');
    const refreshed = await project.api.post(`/segments/${segment.id}/refresh`);
    assert.equal(refreshed.status, 200, refreshed.text);
    assert.equal(refreshed.body.memberCount, 3);
    assert.equal(refreshed.body.id, segment.id);
    assert.equal((await project.api.get(`/segments/${segment.id}`)).body.memberCount, 3);
    assert.equal((await project.api.get('/events')).body.total, eventsBefore, 'refresh emits no events');
    // The stored membership was not touched: compute still sees b and c as new.
    assert.deepEqual((await project.api.post(`/segments/${segment.id}/compute`)).body, { entered: 2, exited: 0, total: 3 });

    const fixed = await createSegment(project, { name: 'Static', type: 'STATIC' });
    await project.api.post(`/segments/${fixed.id}/members`, { emails: ['a@x.test', 'b@x.test'] });
    assert.equal((await project.api.post(`/segments/${fixed.id}/refresh`)).body.memberCount, 2);
  });

  test('compute is refused (400) for untracked and STATIC segments; turning tracking off forgets the membership', async () => {
    const project = await createProject(server.url);
    await upsert(project, 'a@x.test', { plan: 'pro' });
    const untracked = await createSegment(project, { name: 'Untracked', condition: pro });
    const refused = await project.api.post(`/segments/${untracked.id}/compute`);
    assert.equal(refused.status, 400, refused.text);
    const fixed = await createSegment(project, { name: 'Static', type: 'STATIC', trackMembership: true });
    assert.equal((await project.api.post(`/segments/${fixed.id}/compute`)).status, 400);

    const tracked = await createSegment(project, { name: 'Tracked', condition: pro, trackMembership: true });
    assert.deepEqual((await project.api.post(`/segments/${tracked.id}/compute`)).body, { entered: 1, exited: 0, total: 1 });
    await project.api.patch(`/segments/${tracked.id}`, { trackMembership: false });
    assert.equal((await project.api.post(`/segments/${tracked.id}/compute`)).status, 400);
    await project.api.patch(`/segments/${tracked.id}`, { trackMembership: true });
    assert.deepEqual((await project.api.post(`/segments/${tracked.id}/compute`)).body, { entered: 1, exited: 0, total: 1 });
    assert.equal((await eventsNamed(project, 'segment.tracked.entry')).length, 2);
  });
});

test('memberCount is refreshed in the background every SEGMENT_REFRESH_INTERVAL_SECONDS', async () => {
  const server = await startTestServer({ SEGMENT_REFRESH_INTERVAL_SECONDS: '1' });
  try {
    const project = await createProject(server.url);
    const segment = await createSegment(project, { name: 'Pros', condition: pro });
    assert.equal(segment.memberCount, 0);
    await upsert(project, 'a@x.test', { plan: 'pro' });
    await upsert(project, 'b@x.test', { plan: 'pro' });
    const deadline = Date.now() + 30_000;
    let count = 0;
    while (Date.now() < deadline) {
      count = (await project.api.get(`/segments/${segment.id}`)).body.memberCount;
      if (count === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(count, 2);
  } finally {
    await server.close();
  }
});
