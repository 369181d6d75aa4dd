import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { waitForRollup } from '../kit/rollups.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { buildWorkflow, enable, waitForExecution } from '../kit/workflows.ts';

describe('Activity (the API reference (Activity); docs/decisions/contacts-and-events.md)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const track = async (project: TestProject, email: string, event: string, extra: Record<string, unknown> = {}) => {
    const res = await project.publicApi.post('/v1/track', { email, event, ...extra });
    assert.equal(res.status, 200, res.text);
    return res.body.data as { contact: string; event: string };
  };

  test('GET /activity: newest first in the contract shape; type (exact or family) and contact filters; cursor pages; total', async () => {
    const project = await createProject(server.url);
    const ada = uniqueEmail('ada');
    const bob = uniqueEmail('bob');
    const first = await track(project, ada, 'signed-up', { data: { plan: 'pro' } });
    await track(project, bob, 'signed-up');
    await track(project, ada, 'opened-app', { subscribed: false }); // also records contact.unsubscribed
    await track(project, bob, 'opened-app');

    const feed = await project.api.get('/activity');
    assert.equal(feed.status, 200, feed.text);
    const times = feed.body.data.map((item: any) => Date.parse(item.timestamp));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
      'newest first',
    );
    // contact.unsubscribed and ada's opened-app are recorded together, so they share a timestamp.
    const key = (item: any) => `${item.type} ${item.contact.email}`;
    assert.deepEqual(feed.body.data.map(key).slice(0, 1), [`opened-app ${bob.toLowerCase()}`]);
    assert.deepEqual(feed.body.data.map(key).slice(1, 3).sort(), [`contact.unsubscribed ${ada.toLowerCase()}`, `opened-app ${ada.toLowerCase()}`]);
    assert.deepEqual(feed.body.data.map(key).slice(3), [`signed-up ${bob.toLowerCase()}`, `signed-up ${ada.toLowerCase()}`]);
    const oldest = feed.body.data.at(-1);
    assert.deepEqual(Object.keys(oldest).sort(), ['contact', 'data', 'id', 'timestamp', 'type']);
    assert.deepEqual(oldest, { id: first.event, type: 'signed-up', timestamp: oldest.timestamp, contact: { id: first.contact, email: ada.toLowerCase() }, data: { plan: 'pro' } });
    assert.equal(feed.body.hasMore, false);
    assert.equal(feed.body.cursor, null);

    const exact = await project.api.get('/activity?type=signed-up');
    assert.deepEqual(
      exact.body.data.map((i: any) => i.contact.email),
      [bob.toLowerCase(), ada.toLowerCase()],
    );
    const family = await project.api.get('/activity?type=contact.*');
    assert.deepEqual(
      family.body.data.map((i: any) => i.type),
      ['contact.unsubscribed'],
    );
    assert.equal(family.body.total, 1, 'an exact count once the rollup has run, else at least the page');
    const ofAda = await project.api.get(`/activity?contactId=${first.contact}`);
    assert.deepEqual(ofAda.body.data.map((i: any) => i.type).sort(), ['contact.unsubscribed', 'opened-app', 'signed-up']);
    assert.equal(ofAda.body.data.at(-1).type, 'signed-up');
    assert.equal(ofAda.body.total, 3, 'one contact: exact');

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await project.api.get(`/activity?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(page.status, 200, page.text);
      if (pages > 0) assert.equal(page.body.total, 0, 'total only on the first page');
      seen.push(...page.body.data.map((i: any) => i.id));
      cursor = page.body.cursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen,
      feed.body.data.map((i: any) => i.id),
    );

    await waitForRollup(project.api);
    assert.equal((await project.api.get('/activity')).body.total, 5, 'total of the first page from the rollup');
    assert.equal((await project.api.get('/activity?type=opened-app')).body.total, 2);

    assert.equal((await project.api.get('/activity?cursor=garbage')).status, 400);
    assert.equal((await project.api.get('/activity?contactId=nope')).status, 400);
  });

  test('GET /activity/recent-count counts what happened after `since`; /activity/types lists the recorded types', async () => {
    const project = await createProject(server.url);
    const email = uniqueEmail();
    await track(project, email, 'before');
    const since = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await track(project, email, 'after-1');
    await track(project, email, 'after-2', { subscribed: false });
    const recent = await project.api.get(`/activity/recent-count?since=${since.toISOString()}`);
    assert.equal(recent.status, 200, recent.text);
    assert.equal(recent.body.count, 3, 'two tracked events and one contact.unsubscribed');
    assert.equal(recent.body.capped, false);
    assert.equal(recent.body.since, since.toISOString());
    const ofType = await project.api.get(`/activity/recent-count?since=${since.toISOString()}&type=after-1`);
    assert.equal(ofType.body.count, 1);
    assert.equal((await project.api.get('/activity/recent-count')).status, 400, 'since is required');

    const types = await project.api.get('/activity/types');
    assert.equal(types.status, 200);
    assert.deepEqual(
      types.body.data.map((t: any) => [t.type, t.category, t.service]),
      [
        ['after-1', 'custom', false],
        ['after-2', 'custom', false],
        ['before', 'custom', false],
        ['contact.unsubscribed', 'contact', true],
      ],
    );
  });

  test('GET /activity/stats: subscription changes and tracked events over the window, from the rollup', async () => {
    const project = await createProject(server.url);
    const email = uniqueEmail();
    await track(project, email, 'a');
    await track(project, email, 'b', { subscribed: false });
    await track(project, email, 'c', { subscribed: true });
    await waitForRollup(project.api);
    const stats = await project.api.get('/activity/stats');
    assert.equal(stats.status, 200, stats.text);
    assert.deepEqual(stats.body.contacts, { subscribed: 1, unsubscribed: 1 });
    assert.deepEqual(stats.body.events, { tracked: 3 });
    assert.equal(stats.body.emails.sent, 0);
    assert.equal(stats.body.rates.open, null, 'no rate without a denominator');
    const past = await project.api.get('/activity/stats?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z');
    assert.deepEqual(past.body.events, { tracked: 0 });
    assert.equal((await project.api.get('/activity/stats?from=2020-02-01T00:00:00Z&to=2020-01-01T00:00:00Z')).status, 400);
  });

  test('GET /activity/upcoming lists scheduled campaigns due within the horizon, soonest first', async () => {
    const project = await createProject(server.url);
    const insert = (name: string, status: string, inHours: number | null) =>
      server.deps.db.query(
        `INSERT INTO campaigns (project_id, id, name, subject, body, from_email, audience_type, status, scheduled_for, total_recipients)
         VALUES ($1, $2, $3, 's', 'b', 'a@example.test', 'ALL', $4, now() + make_interval(hours => $5::int), 7)`,
        [project.id, randomUUID(), name, status, inHours],
      );
    await insert('in 30 hours', 'SCHEDULED', 30);
    await insert('in 2 hours', 'SCHEDULED', 2);
    await insert('in 400 hours', 'SCHEDULED', 400);
    await insert('a draft', 'DRAFT', null);
    const upcoming = await project.api.get('/activity/upcoming');
    assert.equal(upcoming.status, 200, upcoming.text);
    assert.deepEqual(
      upcoming.body.data.map((i: any) => [i.type, i.name, i.data.recipients]),
      [
        ['campaign.scheduled', 'in 2 hours', 7],
        ['campaign.scheduled', 'in 30 hours', 7],
      ],
    );
    const soon = await project.api.get('/activity/upcoming?hours=24');
    assert.deepEqual(
      soon.body.data.map((i: any) => i.name),
      ['in 2 hours'],
    );
    const other = await createProject(server.url);
    assert.deepEqual((await other.api.get('/activity/upcoming')).body.data, [], 'another project sees none');
  });

  test('GET /activity/upcoming lists workflow executions waiting on a DELAY, with the contact and the step', async () => {
    const project = await createProject(server.url);
    const flow = await buildWorkflow(project.api, { name: 'Nurture', eventName: 'trial-started' }, [{ type: 'DELAY', config: { amount: 3, unit: 'hours' } }]);
    await enable(project.api, flow.id);
    const { contact } = await track(project, uniqueEmail('trial'), 'trial-started');
    await waitForExecution(project.api, flow.id, contact, ['WAITING']);
    const upcoming = await project.api.get('/activity/upcoming');
    assert.equal(upcoming.status, 200, upcoming.text);
    const [item] = upcoming.body.data;
    assert.deepEqual(
      [item.type, item.id, item.name, item.contact.id, item.data.stepId, item.data.stepType],
      ['workflow.waiting', flow.id, 'Nurture', contact, flow.stepIds[0], 'DELAY'],
    );
    const due = Date.parse(item.at) - Date.now();
    assert.ok(due > 2.9 * 3600_000 && due <= 3 * 3600_000, `due in about 3 hours: ${item.at}`);
    assert.deepEqual((await project.api.get('/activity/upcoming?hours=2')).body.data, []);
  });

  test('authentication: the secret key or a member session with X-Project-Id; the public key and strangers are refused', async () => {
    const project = await createProject(server.url);
    assert.equal((await project.dashboard.get('/activity')).status, 200);
    const member = await createAccount(server.url);
    await client(server.url).post(`/projects/${project.id}/members`, { email: member.email, role: 'MEMBER' }, { cookie: project.owner.cookie });
    assert.equal((await client(server.url, { cookie: member.cookie, projectId: project.id }).get('/activity/types')).status, 200);
    assert.equal((await project.publicApi.get('/activity')).status, 401);
    const stranger = await createAccount(server.url);
    assert.equal((await client(server.url, { cookie: stranger.cookie, projectId: project.id }).get('/activity')).status, 403);
    for (const path of ['/activity', '/activity/stats', '/activity/types', '/activity/upcoming', `/activity/recent-count?since=${new Date().toISOString()}`]) {
      assert.equal((await client(server.url).get(path)).status, 401, path);
    }
  });
});
