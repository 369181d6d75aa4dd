import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { createAccount, createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { verifiedDomain } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { client } from '../kit/http.ts';
import { rebuildRollups, waitForRollup } from '../kit/rollups.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

type SeedEvent = { name: string; at: string; data?: Record<string, unknown> };

describe('Analytics (the API reference (Analytics)): rollups, windows, buckets and time zones', () => {
  let server: TestServer;
  let dns: DnsServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  /** Events with chosen timestamps (the past cannot be reached over HTTP), then a full recount. */
  async function seed(project: TestProject, events: SeedEvent[]) {
    const [contact] = await server.deps.db.query<{ id: string }>(`INSERT INTO contacts (project_id, email, subscribed) VALUES ($1, $2, true) RETURNING id`, [
      project.id,
      uniqueEmail('seed'),
    ]);
    await server.deps.db.query(
      `WITH input AS (SELECT * FROM jsonb_to_recordset($3::jsonb) AS x(name text, data jsonb, at timestamptz)),
            ev AS (INSERT INTO events (project_id, contact_id, name, data, created_at) SELECT $1, $2, name, coalesce(data, '{}'), at FROM input)
       INSERT INTO event_names (project_id, name) SELECT DISTINCT $1::uuid, name FROM input ON CONFLICT DO NOTHING`,
      [project.id, contact!.id, JSON.stringify(events)],
    );
    await rebuildRollups(server.deps.db);
    await waitForRollup(project.api);
  }

  const tracked = (path: string) => path.replace(/^https?:\/\/[^/]+/, '');

  test('timeseries after real sends, opens and clicks: per-bucket counts, totals, unique opens and clicks, rates', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    // An inline send is TRANSACTIONAL, whose opens are tracked only when the project says so.
    const tracking = await client(server.url).patch(`/users/@me/projects/${project.id}`, { tracking: { opens: 'all' } }, { cookie: project.owner.cookie });
    assert.equal(tracking.status, 200, tracking.text);
    const sent = await project.api.post('/v1/send', {
      to: [uniqueEmail('a'), uniqueEmail('b'), uniqueEmail('c')],
      from: `news@${domain.domain}`,
      subject: 'Hello',
      body: '<html><body><p>Read <a href="https://example.com/article">this</a>.</p></body></html>',
    });
    assert.equal(sent.status, 200, sent.text);
    const ids: string[] = sent.body.data.emails.map((e: any) => e.email);
    for (const id of ids) await waitForStatus(project.api, id, ['DELIVERED']);
    const html = async (id: string) => ((await simpleParser(readFileSync(join(server.dataDir, 'outbox', `${id}.eml`)))).html || '') as string;
    const first = await html(ids[0]!);
    const pixel = tracked(/src="([^"]+\/t\/o\/[^"]+)"/.exec(first)![1]!);
    const link = tracked(/href="([^"]+\/t\/c\/[^"]+)"/.exec(first)![1]!);
    const http = client(server.url);
    for (const path of [pixel, pixel, link, link]) assert.ok([200, 302].includes((await http.get(path)).status), path);
    const second = await html(ids[1]!);
    assert.equal((await http.get(tracked(/src="([^"]+\/t\/o\/[^"]+)"/.exec(second)![1]!))).status, 200);

    await waitForRollup(project.api);
    const series = await project.api.get('/analytics/timeseries');
    assert.equal(series.status, 200, series.text);
    assert.equal(series.body.interval, 'day', '30 days by default, in days');
    assert.equal(series.body.tz, 'UTC');
    assert.equal(series.body.data.length, 31, 'every UTC day touching the window, empty ones included');
    assert.match(series.body.data[0].bucket, /T00:00:00\.000Z$/);
    assert.deepEqual(
      { ...series.body.totals },
      { attempted: 3, sent: 3, delivered: 3, opened: 3, uniqueOpened: 2, clicked: 2, uniqueClicked: 1, bounced: 0, softBounced: 0, complained: 0, failed: 0, suppressed: 0 },
    );
    assert.deepEqual(series.body.rates, { delivery: 1, open: 0.6667, click: 0.3333, bounce: 0, complaint: 0 });
    const today = series.body.data.at(-1);
    assert.equal(today.label, new Date().toISOString().slice(0, 10));
    assert.equal(today.delivered, 3);
    assert.ok(series.body.data.slice(0, -1).every((point: any) => point.sent === 0));
    assert.equal(series.body.from, series.body.data[0].bucket);
    assert.ok(Date.parse(series.body.to) > Date.now(), 'widened to the end of today');

    const hourly = await project.api.get(`/analytics/timeseries?from=${new Date(Date.now() - 3 * 3600_000).toISOString()}`);
    assert.equal(hourly.body.interval, 'hour', 'short windows default to hours');
    assert.ok(hourly.body.data.length >= 3 && hourly.body.data.length <= 4);
    assert.equal(
      hourly.body.data.reduce((sum: number, p: any) => sum + p.uniqueOpened, 0),
      2,
    );
  });

  test('buckets follow the time zone: local midnights, a 23-hour DST day, half-hour offsets', async () => {
    const project = await createProject(server.url);
    await seed(project, [
      { name: 'email.sent', at: '2026-03-08T04:30:00Z' }, // New York: 7 March 23:30 EST
      { name: 'email.sent', at: '2026-03-08T05:30:00Z' }, // New York: 8 March 00:30 EST
      { name: 'email.sent', at: '2026-03-09T03:59:00Z' }, // New York: 8 March 23:59 EDT (the day has 23 hours)
      { name: 'email.delivered', at: '2026-03-09T04:00:00Z' }, // New York: 9 March 00:00 EDT
    ]);
    const window = 'from=2026-03-07T00:00:00Z&to=2026-03-10T00:00:00Z&interval=day';
    const utc = await project.api.get(`/analytics/timeseries?${window}`);
    assert.equal(utc.status, 200, utc.text);
    assert.deepEqual(
      utc.body.data.map((p: any) => [p.label, p.sent, p.delivered]),
      [
        ['2026-03-07', 0, 0],
        ['2026-03-08', 2, 0],
        ['2026-03-09', 1, 1],
      ],
    );
    const ny = await project.api.get(`/analytics/timeseries?${window}&tz=America/New_York`);
    assert.deepEqual(
      ny.body.data.map((p: any) => [p.label, p.bucket, p.sent, p.delivered]),
      [
        ['2026-03-06', '2026-03-06T05:00:00.000Z', 0, 0],
        ['2026-03-07', '2026-03-07T05:00:00.000Z', 1, 0],
        ['2026-03-08', '2026-03-08T05:00:00.000Z', 2, 0],
        ['2026-03-09', '2026-03-09T04:00:00.000Z', 0, 1],
      ],
    );
    assert.equal(ny.body.from, '2026-03-06T05:00:00.000Z');
    assert.equal(ny.body.to, '2026-03-10T04:00:00.000Z');
    const kolkata = await project.api.get('/analytics/timeseries?from=2026-03-08T04:00:00Z&to=2026-03-08T06:00:00Z&tz=Asia/Kolkata');
    assert.equal(kolkata.status, 200, kolkata.text);
    assert.equal(kolkata.body.interval, 'hour');
    assert.deepEqual(
      kolkata.body.data.map((p: any) => [p.bucket, p.label, p.sent]),
      [
        ['2026-03-08T03:30:00.000Z', '2026-03-08T09:00', 0],
        ['2026-03-08T04:30:00.000Z', '2026-03-08T10:00', 1],
        ['2026-03-08T05:30:00.000Z', '2026-03-08T11:00', 1],
      ],
    );
  });

  test('top-campaigns and campaign-stats: per campaign counts and rates, ranked by a count or a rate', async () => {
    const project = await createProject(server.url);
    const campaign = async (name: string) => {
      const id = randomUUID();
      await server.deps.db.query(
        `INSERT INTO campaigns (project_id, id, name, subject, body, from_email, audience_type, status) VALUES ($1, $2, $3, 's', 'b', 'a@example.test', 'ALL', 'SENT')`,
        [project.id, id, name],
      );
      return id;
    };
    const big = await campaign('Big');
    const small = await campaign('Small');
    const gone = randomUUID(); // a campaign deleted since: its figures stay, its name is gone
    const at = new Date(Date.now() - 3600_000).toISOString();
    const times = (n: number, name: string, data: Record<string, unknown>) => Array.from({ length: n }, () => ({ name, at, data }));
    await seed(project, [
      ...times(10, 'email.sent', { campaignId: big }),
      ...times(10, 'email.delivered', { campaignId: big }),
      ...times(3, 'email.opened', { campaignId: big, firstOpen: true }),
      ...times(4, 'email.opened', { campaignId: big, firstOpen: false }),
      ...times(2, 'email.sent', { campaignId: small }),
      ...times(2, 'email.delivered', { campaignId: small }),
      ...times(2, 'email.opened', { campaignId: small, firstOpen: true }),
      ...times(1, 'email.bounced', { campaignId: small, bounceType: 'hard' }),
      ...times(1, 'email.sent', { campaignId: gone }),
      ...times(5, 'email.sent', {}), // transactional: in no campaign
    ]);

    const byRate = await project.api.get('/analytics/top-campaigns?metric=opened&as=rate');
    assert.equal(byRate.status, 200, byRate.text);
    assert.deepEqual(
      byRate.body.data.map((c: any) => [c.name, c.value]),
      [
        ['Small', 1],
        ['Big', 0.3],
        [null, null],
      ],
    );
    const small1 = byRate.body.data[0];
    assert.equal(small1.campaignId, small);
    assert.equal(small1.status, 'SENT');
    assert.equal(small1.attempted, 3, 'a hard bounce of a message never accepted counts as sent to the receiver');
    assert.equal(small1.rates.bounce, 0.3333);
    const byCount = await project.api.get('/analytics/top-campaigns?metric=opened&as=count&limit=1');
    assert.deepEqual(
      byCount.body.data.map((c: any) => [c.name, c.value]),
      [['Big', 3]],
    );
    assert.equal((await project.api.get('/analytics/top-campaigns?metric=sent&as=rate')).status, 400);

    const stats = await project.api.get('/analytics/campaign-stats');
    assert.equal(stats.status, 200, stats.text);
    assert.deepEqual(stats.body.data.map((c: any) => c.campaignId).sort(), [big, small, gone].sort());
    const one = await project.api.get(`/analytics/campaign-stats?campaignId=${big}&from=${new Date(Date.now() - 6 * 3600_000).toISOString()}`);
    assert.equal(one.status, 200, one.text);
    assert.equal(one.body.data.length, 1);
    assert.deepEqual([one.body.data[0].name, one.body.data[0].sent, one.body.data[0].opened, one.body.data[0].uniqueOpened], ['Big', 10, 7, 3]);
    assert.equal(one.body.interval, 'hour');
    assert.equal(
      one.body.series.reduce((sum: number, p: any) => sum + p.sent, 0),
      10,
    );
    const unsent = await campaign('Never sent');
    const empty = await project.api.get(`/analytics/campaign-stats?campaignId=${unsent}`);
    assert.equal(empty.status, 200);
    assert.equal(empty.body.data[0].sent, 0);
    assert.equal((await project.api.get(`/analytics/campaign-stats?campaignId=${randomUUID()}`)).status, 404);
  });

  test('top-events: tracked names by count (service events with include=all); a deleted name drops out', async () => {
    const project = await createProject(server.url);
    const email = uniqueEmail();
    for (const [event, n] of [
      ['signed-up', 3],
      ['purchased', 1],
      ['viewed', 2],
    ] as const) {
      for (let i = 0; i < n; i++) assert.equal((await project.publicApi.post('/v1/track', { email, event })).status, 200);
    }
    assert.equal((await project.publicApi.post('/v1/track', { email, event: 'viewed', subscribed: false })).status, 200);
    await waitForRollup(project.api);
    const top = await project.api.get('/analytics/top-events');
    assert.equal(top.status, 200, top.text);
    assert.deepEqual(top.body.data, [
      { name: 'signed-up', count: 3 },
      { name: 'viewed', count: 3 },
      { name: 'purchased', count: 1 },
    ]);
    const all = await project.api.get('/analytics/top-events?include=all&limit=2');
    assert.deepEqual(
      all.body.data.map((e: any) => e.name),
      ['signed-up', 'viewed'],
    );
    assert.ok((await project.api.get('/analytics/top-events?include=all')).body.data.some((e: any) => e.name === 'contact.unsubscribed'));
    assert.equal((await project.api.delete('/events/viewed')).status, 200);
    assert.deepEqual(
      (await project.api.get('/analytics/top-events')).body.data.map((e: any) => e.name),
      ['signed-up', 'purchased'],
    );
  });

  test('windows are checked (400), a MEMBER session reads them, the public key and strangers cannot', async () => {
    const project = await createProject(server.url);
    for (const query of [
      'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      'from=2025-01-01T00:00:00Z&to=2026-06-01T00:00:00Z',
      'from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&interval=hour',
      'tz=Mars/Olympus_Mons',
      'interval=week',
      'from=yesterday',
    ]) {
      const res = await project.api.get(`/analytics/timeseries?${query}`);
      assert.equal(res.status, 400, `${query}: ${res.text}`);
    }
    const member = await createAccount(server.url);
    await client(server.url).post(`/projects/${project.id}/members`, { email: member.email, role: 'MEMBER' }, { cookie: project.owner.cookie });
    const asMember = client(server.url, { cookie: member.cookie, projectId: project.id });
    for (const path of ['/analytics/timeseries', '/analytics/top-campaigns', '/analytics/campaign-stats', '/analytics/top-events']) {
      assert.equal((await asMember.get(path)).status, 200, path);
      assert.equal((await project.publicApi.get(path)).status, 401, path);
      assert.equal((await client(server.url).get(path)).status, 401, path);
    }
    const stranger = await createAccount(server.url);
    assert.equal((await client(server.url, { cookie: stranger.cookie, projectId: project.id }).get('/analytics/timeseries')).status, 403);
  });
});
