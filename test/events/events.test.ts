import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('Events API', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const track = async (project: TestProject, email: string, event: string, data?: Record<string, unknown>) => {
    const res = await project.publicApi.post('/v1/track', { email, event, data });
    assert.equal(res.status, 200, res.text);
    return res.body.data as { contact: string; event: string };
  };

  test('GET /events: newest first, item shape, filters, pagination with total on the first page', async () => {
    const project = await createProject(server.url);
    const alice = uniqueEmail('alice');
    const bob = uniqueEmail('bob');
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await track(project, i % 2 ? bob : alice, i % 3 ? 'click' : 'view', { i })).event);
    const all = await project.api.get('/events');
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 7);
    assert.equal(all.body.hasMore, false);
    assert.equal(all.body.cursor, null);
    assert.deepEqual(
      all.body.data.map((e: any) => e.id),
      [...ids].reverse(),
      'newest first',
    );
    const [latest] = all.body.data;
    assert.deepEqual(Object.keys(latest).sort(), ['contactId', 'createdAt', 'data', 'email', 'emailId', 'id', 'name']);
    assert.deepEqual(latest.data, { i: 6 });
    assert.equal(latest.email, alice.toLowerCase());

    const views = await project.api.get('/events?name=view');
    assert.deepEqual(
      views.body.data.map((e: any) => e.data.i),
      [6, 3, 0],
    );
    const bobId = all.body.data[1].contactId; // event 5 is bob's
    const bobs = await project.api.get(`/events?contactId=${bobId}`);
    assert.ok(bobs.body.data.every((e: any) => e.email === bob.toLowerCase()));
    assert.equal(bobs.body.total, 3);
    const bobClicks = await project.api.get(`/events?name=click&contactId=${bobId}`);
    assert.deepEqual(
      bobClicks.body.data.map((e: any) => e.data.i),
      [5, 1],
    );

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await project.api.get(`/events?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(page.body.total, pages === 0 ? 7 : 0);
      seen.push(...page.body.data.map((e: any) => e.id));
      cursor = page.body.cursor;
      pages++;
      if (pages === 1) await track(project, alice, 'view'); // a newer event does not shift later pages
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...ids].reverse());

    assert.equal((await project.api.get('/events?limit=1000')).body.data.length, 8, 'limit above 100 is clamped, not refused');
    for (const query of ['cursor=garbage', 'cursor=a.b', 'limit=0', 'contactId=not-a-uuid']) {
      const res = await project.api.get(`/events?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
    }
  });

  test('GET /events/contact/{contactId}: one contact, 404 for unknown or other projects, 422 for a bad id', async () => {
    const project = await createProject(server.url);
    const other = await createProject(server.url);
    const mine = await track(project, uniqueEmail(), 'a');
    await track(project, uniqueEmail(), 'b');
    const theirs = await track(other, uniqueEmail(), 'c');
    const res = await project.api.get(`/events/contact/${mine.contact}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 1);
    assert.deepEqual(
      res.body.data.map((e: any) => e.id),
      [mine.event],
    );
    assert.equal((await project.api.get(`/events/contact/${theirs.contact}`)).status, 404);
    assert.equal((await project.api.get(`/events/contact/${randomUUID()}`)).status, 404);
    const bad = await project.api.get('/events/contact/123');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.errors[0].field, 'contactId');
    assert.equal((await project.api.get('/events')).body.total, 2, "other projects' events are not listed");
  });

  test('GET /events/names, /usage and DELETE /events/{eventName}', async () => {
    const project = await createProject(server.url);
    const other = await createProject(server.url);
    const email = uniqueEmail();
    await track(project, email, 'signup');
    await track(project, email, 'signup');
    await track(project, email, 'order.placed');
    await project.publicApi.post('/v1/track', { email, event: 'signup', subscribed: false });
    await track(other, uniqueEmail(), 'signup');
    const names = await project.api.get('/events/names');
    assert.equal(names.status, 200);
    assert.deepEqual(
      names.body.data.map((n: any) => n.name),
      ['contact.unsubscribed', 'order.placed', 'signup'],
    );
    assert.ok(names.body.data.every((n: any) => !Number.isNaN(Date.parse(n.firstSeenAt))));

    const usage = await project.api.get('/events/signup/usage');
    assert.equal(usage.status, 200);
    assert.deepEqual(usage.body, { segments: [], campaigns: [], workflows: [] });

    const deleted = await project.api.delete('/events/signup');
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, { deleted: 3 });
    assert.deepEqual(
      (await project.api.get('/events/names')).body.data.map((n: any) => n.name),
      ['contact.unsubscribed', 'order.placed'],
    );
    assert.equal((await project.api.get('/events?name=signup')).body.total, 0);
    assert.equal((await project.api.get('/events')).body.total, 2);
    assert.deepEqual((await project.api.delete('/events/signup')).body, { deleted: 0 });
    assert.equal((await other.api.get('/events?name=signup')).body.total, 1, 'other projects keep theirs');
    assert.deepEqual((await project.api.delete('/events/order.placed')).body, { deleted: 1 });

    // Names whose events all went with their contact are not listed.
    const gone = await track(project, uniqueEmail(), 'ephemeral');
    await project.api.delete(`/contacts/${gone.contact}`);
    assert.ok(!(await project.api.get('/events/names')).body.data.some((n: any) => n.name === 'ephemeral'));
  });

  test('GET /events/stats: counts per name and per UTC day over the window', async () => {
    const project = await createProject(server.url);
    const email = uniqueEmail();
    for (const name of ['view', 'view', 'click']) await track(project, email, name);
    const stats = await project.api.get('/events/stats');
    assert.equal(stats.status, 200, stats.text);
    assert.equal(stats.body.total, 3);
    assert.deepEqual(stats.body.byName, [
      { name: 'view', count: 2 },
      { name: 'click', count: 1 },
    ]);
    assert.ok(stats.body.byDay.length >= 30 && stats.body.byDay.length <= 31, 'default window: the last 30 days, every day listed');
    const today = new Date().toISOString().slice(0, 10);
    assert.deepEqual(stats.body.byDay.at(-1), { date: today, count: 3 });
    assert.equal(
      stats.body.byDay.slice(0, -1).reduce((sum: number, d: any) => sum + d.count, 0),
      0,
    );

    const onlyViews = await project.api.get('/events/stats?name=view');
    assert.equal(onlyViews.body.total, 2);
    const from = new Date(Date.now() - 3 * 86_400_000).toISOString();
    const to = new Date(Date.now() - 86_400_000).toISOString();
    const past = await project.api.get(`/events/stats?from=${from}&to=${to}`);
    assert.equal(past.body.total, 0);
    assert.equal(past.body.from, from);
    assert.equal(past.body.byDay.length, 3);
    for (const query of [`from=${to}&to=${from}`, 'from=yesterday', 'from=2020-01-01T00:00:00Z&to=2022-01-01T00:00:00Z']) {
      const res = await project.api.get(`/events/stats?${query}`);
      assert.equal(res.status, 400, query);
    }
  });

  test('keys: the public key is refused on the Events API; a session works', async () => {
    const project = await createProject(server.url);
    for (const path of ['/events', '/events/stats', '/events/names', '/events/x/usage']) {
      const res = await project.publicApi.get(path);
      assert.equal(res.status, 401, path);
      assert.equal(res.body.error.code, 'INVALID_API_KEY');
    }
    assert.equal((await project.publicApi.delete('/events/x')).status, 401);
    assert.equal((await project.dashboard.get('/events')).status, 200);
    assert.equal((await project.dashboard.get('/events/names')).status, 200);
  });
});
