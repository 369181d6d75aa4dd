import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const SEGMENT_KEYS = ['condition', 'createdAt', 'description', 'id', 'memberCount', 'name', 'projectId', 'trackMembership', 'type', 'updatedAt'];
const pro = { logic: 'AND', groups: [{ filters: [{ field: 'data.plan', operator: 'equals', value: 'pro' }] }] };

describe('segments (the API reference (Segments); docs/decisions/segments.md)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function contacts(project: TestProject, list: [string, Record<string, unknown>, boolean?][]) {
    for (const [email, data, subscribed] of list) {
      const res = await project.api.post('/contacts', { email, data, subscribed: subscribed ?? true });
      assert.ok(res.status === 201 || res.status === 200, res.text);
    }
  }

  async function create(project: TestProject, body: Record<string, unknown>) {
    const res = await project.api.post('/segments', body);
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  /** A flat 400 `{ error }` whose message matches. */
  function assertFlat400(res: { status: number; body: any; text: string }, message: RegExp) {
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(Object.keys(res.body), ['error']);
    assert.equal(typeof res.body.error, 'string');
    assert.match(res.body.error, message);
  }

  test('POST /segments → 201 Segment with defaults and a counted memberCount; GET one and list', async () => {
    const project = await createProject(server.url);
    await contacts(project, [
      ['a@x.test', { plan: 'pro' }],
      ['b@x.test', { plan: 'pro' }, false],
      ['c@x.test', { plan: 'free' }],
    ]);
    const segment = await create(project, { name: 'Pros', condition: pro });
    assert.deepEqual(Object.keys(segment).sort(), SEGMENT_KEYS);
    assert.deepEqual([segment.type, segment.trackMembership, segment.description, segment.memberCount, segment.projectId], ['DYNAMIC', false, null, 2, project.id]);
    assert.deepEqual(segment.condition, pro);

    const got = await project.api.get(`/segments/${segment.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, segment);
    const fixed = await create(project, { name: 'Picked', description: 'hand-picked', type: 'STATIC', condition: pro, trackMembership: false });
    assert.deepEqual([fixed.type, fixed.condition, fixed.memberCount, fixed.description], ['STATIC', null, 0, 'hand-picked']);

    const list = await project.dashboard.get('/segments');
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.map((s: any) => s.id),
      [segment.id, fixed.id],
    );
    assert.equal((await client(server.url).get('/segments')).status, 401);
  });

  test('a bad body is a flat 400 { error }, naming the path of a bad filter', async () => {
    const project = await createProject(server.url);
    const post = (body: unknown) => project.api.post('/segments', body);
    assertFlat400(await post({ condition: pro }), /name is required/);
    assertFlat400(await post({ name: '', condition: pro }), /name/);
    assertFlat400(await post({ name: 'x'.repeat(101), condition: pro }), /100/);
    assertFlat400(await post({ name: 42, condition: pro }), /name/);
    assertFlat400(await post({ name: 'ok', description: 'x'.repeat(501), condition: pro }), /500/);
    assertFlat400(await post({ name: 'ok', type: 'SMART', condition: pro }), /DYNAMIC or STATIC/);
    assertFlat400(await post({ name: 'ok', trackMembership: 'yes', condition: pro }), /trackMembership/);
    assertFlat400(await post({ name: 'ok' }), /condition is required/);
    assertFlat400(await post({ name: 'ok', condition: 'plan = pro' }), /condition is required/);
    assertFlat400(await post({ name: 'ok', condition: [pro] }), /condition is required/);
    const badOperator = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'email', operator: 'contains', value: 'x' },
            { field: 'email', operator: 'startsWith', value: 'x' },
          ],
        },
      ],
    };
    assertFlat400(await post({ name: 'ok', condition: badOperator }), /groups\[0\]\.filters\[1\]\.operator/);
    const missingUnit = {
      logic: 'OR',
      groups: [{ filters: [], conditions: { logic: 'AND', groups: [{ filters: [{ field: 'event.x', operator: 'triggeredWithin', value: 3 }] }] } }],
    };
    assertFlat400(await post({ name: 'ok', condition: missingUnit }), /groups\[0\]\.conditions\.groups\[0\]\.filters\[0\]\.unit/);
    const unknownSegment = { logic: 'AND', groups: [{ filters: [{ field: `segment.${randomUUID()}`, operator: 'memberOfSegment' }] }] };
    assertFlat400(await post({ name: 'ok', condition: unknownSegment }), /groups\[0\]\.filters\[0\]\.field: segment .* does not exist/);
    // Not a 400 of the flat kind: a malformed id is 422, an unknown one 404.
    assert.equal((await project.api.get('/segments/not-a-uuid')).status, 422);
    assert.equal((await project.api.get(`/segments/${randomUUID()}`)).status, 404);
    assert.equal((await project.api.get('/segments')).body.length, 0);
  });

  test('PATCH: name, description, condition (recounted), trackMembership; type and STATIC conditions refused; circular references refused', async () => {
    const project = await createProject(server.url);
    await contacts(project, [
      ['a@x.test', { plan: 'pro', n: 1 }],
      ['b@x.test', { plan: 'free', n: 2 }],
    ]);
    const segment = await create(project, { name: 'Pros', condition: pro });
    const patch = (id: string, body: unknown) => project.api.patch(`/segments/${id}`, body);

    const renamed = await patch(segment.id, { name: ' Everyone ', description: 'all of them', trackMembership: true });
    assert.equal(renamed.status, 200, renamed.text);
    assert.deepEqual([renamed.body.name, renamed.body.description, renamed.body.trackMembership, renamed.body.memberCount], ['Everyone', 'all of them', true, 1]);
    assert.ok(Date.parse(renamed.body.updatedAt) >= Date.parse(segment.updatedAt));

    const all = { logic: 'OR', groups: [{ filters: [{ field: 'data.n', operator: 'greaterThanOrEqual', value: 1 }] }] };
    const recounted = await patch(segment.id, { condition: all, description: null });
    assert.equal(recounted.status, 200, recounted.text);
    assert.deepEqual([recounted.body.memberCount, recounted.body.description, recounted.body.name], [2, null, 'Everyone']);
    assert.deepEqual(recounted.body.condition, all);

    assertFlat400(await patch(segment.id, { type: 'STATIC' }), /type cannot be changed/);
    assertFlat400(await patch(segment.id, { name: 'x'.repeat(101) }), /100/);
    assertFlat400(await patch(segment.id, { condition: { logic: 'AND', groups: [] } }), /groups/);
    const fixed = await create(project, { name: 'Picked', type: 'STATIC' });
    assertFlat400(await patch(fixed.id, { condition: pro }), /DYNAMIC segments only/);

    // Self and circular references (docs/decisions/segments.md).
    const self = { logic: 'AND', groups: [{ filters: [{ field: `segment.${segment.id}`, operator: 'memberOfSegment' }] }] };
    assertFlat400(await patch(segment.id, { condition: self }), /circular/);
    const other = await create(project, { name: 'Other', condition: self });
    assert.equal(other.memberCount, 2);
    const back = { logic: 'AND', groups: [{ filters: [{ field: `segment.${other.id}`, operator: 'notMemberOfSegment' }] }] };
    assertFlat400(await patch(segment.id, { condition: back }), /groups\[0\]\.filters\[0\]\.field: .*circular/);
    assert.equal((await patch(randomUUID(), { name: 'x' })).status, 404);
  });

  test('GET /segments/{id}/contacts: live members, page and pageSize (clamped to 100)', async () => {
    const project = await createProject(server.url);
    await contacts(
      project,
      Array.from({ length: 5 }, (_, i) => [`m${i}@x.test`, { plan: 'pro' }] as [string, Record<string, unknown>]),
    );
    await contacts(project, [['free@x.test', { plan: 'free' }]]);
    const segment = await create(project, { name: 'Pros', condition: pro });
    const page1 = await project.api.get(`/segments/${segment.id}/contacts?page=1&pageSize=2`);
    assert.equal(page1.status, 200, page1.text);
    assert.deepEqual([page1.body.total, page1.body.page, page1.body.pageSize, page1.body.data.length], [5, 1, 2, 2]);
    assert.deepEqual(Object.keys(page1.body.data[0]).sort(), ['createdAt', 'data', 'email', 'id', 'snoozedUntil', 'subscribed', 'updatedAt']);
    const page3 = await project.api.get(`/segments/${segment.id}/contacts?page=3&pageSize=2`);
    assert.equal(page3.body.data.length, 1);
    const seen = new Set(
      [...page1.body.data, ...(await project.api.get(`/segments/${segment.id}/contacts?page=2&pageSize=2`)).body.data, ...page3.body.data].map((c: any) => c.email),
    );
    assert.equal(seen.size, 5);
    assert.ok(!seen.has('free@x.test'));

    // Live: a new matching contact shows at once, while the cached memberCount waits for a refresh.
    await contacts(project, [['late@x.test', { plan: 'pro' }]]);
    const live = await project.api.get(`/segments/${segment.id}/contacts?pageSize=500`);
    assert.deepEqual([live.body.total, live.body.pageSize, live.body.page], [6, 100, 1]);
    assert.equal((await project.api.get(`/segments/${segment.id}`)).body.memberCount, 5);
    assert.equal((await project.api.get(`/segments/${segment.id}/contacts?page=0`)).status, 400);
    assert.equal((await project.api.get(`/segments/${randomUUID()}/contacts`)).status, 404);
  });

  test('static members: add (createMissing, subscribed), remove, counts; DYNAMIC refused; at most 1000 emails', async () => {
    const project = await createProject(server.url);
    await contacts(project, [
      ['known@x.test', {}],
      ['other@x.test', {}],
    ]);
    const segment = await create(project, { name: 'Picked', type: 'STATIC' });
    const members = `/segments/${segment.id}/members`;

    const added = await project.api.post(members, { emails: ['Known@X.test', 'ghost@x.test'] });
    assert.equal(added.status, 200, added.text);
    assert.deepEqual(added.body, { added: 1, created: 0, notFound: ['ghost@x.test'] });
    const created = await project.api.post(members, { emails: ['known@x.test', 'ghost@x.test', 'new@x.test'], createMissing: true, subscribed: false });
    assert.deepEqual(created.body, { added: 2, created: 2, notFound: [] });
    const ghost = (await project.api.get('/contacts?search=ghost')).body.data[0];
    assert.equal(ghost.subscribed, false);
    assert.equal((await project.api.get(`/segments/${segment.id}`)).body.memberCount, 3);
    const listed = await project.api.get(`/segments/${segment.id}/contacts`);
    assert.deepEqual(listed.body.data.map((c: any) => c.email).sort(), ['ghost@x.test', 'known@x.test', 'new@x.test']);

    const removed = await project.api.request('DELETE', members, { emails: ['known@x.test', 'other@x.test', 'nobody@x.test'] });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(removed.body, { removed: 1 });
    assert.equal((await project.api.get(`/segments/${segment.id}`)).body.memberCount, 2);

    const tooMany = Array.from({ length: 1001 }, (_, i) => `u${i}@x.test`);
    assert.equal((await project.api.post(members, { emails: tooMany })).status, 400);
    assert.equal((await project.api.post(members, { emails: ['not an email'] })).status, 422);
    const dynamic = await create(project, { name: 'Pros', condition: pro });
    assert.equal((await project.api.post(`/segments/${dynamic.id}/members`, { emails: ['known@x.test'] })).status, 400);
    assert.equal((await project.api.request('DELETE', `/segments/${dynamic.id}/members`, { emails: ['known@x.test'] })).status, 400);
    assert.equal((await project.api.post(`/segments/${randomUUID()}/members`, { emails: ['known@x.test'] })).status, 404);
  });

  test('DELETE → 204 then 404; 409 while another segment or an active campaign uses it', async () => {
    const project = await createProject(server.url);
    const target = await create(project, { name: 'Target', condition: pro });
    const referencing = await create(project, {
      name: 'Uses target',
      condition: { logic: 'AND', groups: [{ filters: [{ field: `segment.${target.id}`, operator: 'memberOfSegment' }] }] },
    });
    const blocked = await project.api.delete(`/segments/${target.id}`);
    assert.equal(blocked.status, 409, blocked.text);
    assert.match(blocked.body.error.message, /Uses target/);
    assert.equal((await project.api.delete(`/segments/${referencing.id}`)).status, 204);

    const insertCampaign = (status: string, segmentId: string | null, condition: object | null) =>
      server.deps.db.query(
        `INSERT INTO campaigns (project_id, name, subject, body, from_email, audience_type, segment_id, audience_condition, status)
         VALUES ($1, $2, 's', 'b', 'a@x.test', $3, $4, $5::jsonb, $6)`,
        [project.id, `${status} campaign`, segmentId ? 'SEGMENT' : 'FILTERED', segmentId, condition ? JSON.stringify(condition) : null, status],
      );
    await insertCampaign('SENT', target.id, null);
    await insertCampaign('SCHEDULED', null, { logic: 'OR', groups: [{ filters: [{ field: `segment.${target.id}`, operator: 'notMemberOfSegment' }] }] });
    const byCampaign = await project.api.delete(`/segments/${target.id}`);
    assert.equal(byCampaign.status, 409, byCampaign.text);
    assert.match(byCampaign.body.error.message, /SCHEDULED campaign/);
    await server.deps.db.query(`UPDATE campaigns SET status = 'CANCELLED' WHERE project_id = $1`, [project.id]);

    assert.equal((await project.api.delete(`/segments/${target.id}`)).status, 204);
    assert.equal((await project.api.get(`/segments/${target.id}`)).status, 404);
    assert.equal((await project.api.delete(`/segments/${target.id}`)).status, 404);
  });

  test('another project sees none of it: 404 on every endpoint, its segments not referable, its contacts not counted', async () => {
    const owner = await createProject(server.url);
    const stranger = await createProject(server.url);
    await contacts(owner, [['a@x.test', { plan: 'pro' }]]);
    await contacts(stranger, [
      ['s@x.test', { plan: 'pro' }],
      ['t@x.test', { plan: 'pro' }],
    ]);
    const segment = await create(owner, { name: 'Pros', condition: pro, trackMembership: true });
    assert.equal(segment.memberCount, 1);
    const path = `/segments/${segment.id}`;
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PATCH', '', { name: 'x' }],
      ['DELETE', '', undefined],
      ['GET', '/contacts', undefined],
      ['POST', '/members', { emails: ['s@x.test'] }],
      ['DELETE', '/members', { emails: ['s@x.test'] }],
      ['POST', '/compute', undefined],
      ['POST', '/refresh', undefined],
    ] as const) {
      const res = await stranger.api.request(method, path + suffix, body);
      assert.equal(res.status, 404, `${method} ${suffix}: ${res.text}`);
    }
    assert.deepEqual((await stranger.api.get('/segments')).body, []);
    const borrowed = { logic: 'AND', groups: [{ filters: [{ field: `segment.${segment.id}`, operator: 'memberOfSegment' }] }] };
    assertFlat400(await stranger.api.post('/segments', { name: 'Borrowed', condition: borrowed }), /does not exist/);
    assert.equal((await stranger.api.post('/segments', { name: 'Theirs', condition: pro })).body.memberCount, 2);
  });

  test('usage: field usage and event-name usage list the segments that reference them', async () => {
    const project = await createProject(server.url);
    const byPlan = await create(project, { name: 'By plan', condition: pro });
    const nested = {
      logic: 'OR',
      groups: [
        { filters: [{ field: 'email', operator: 'contains', value: '@x' }] },
        {
          filters: [],
          conditions: {
            logic: 'AND',
            groups: [
              {
                filters: [
                  { field: 'event.purchase', operator: 'triggered' },
                  { field: 'email.opened', operator: 'notTriggered' },
                ],
              },
            ],
          },
        },
      ],
    };
    const byEvent = await create(project, { name: 'Buyers', condition: nested });
    const fieldUsage = await project.api.get('/contacts/fields/plan/usage');
    assert.equal(fieldUsage.status, 200, fieldUsage.text);
    assert.deepEqual(fieldUsage.body.segments, [{ id: byPlan.id, name: 'By plan' }]);
    assert.deepEqual((await project.api.get('/contacts/fields/email/usage')).body.segments, [{ id: byEvent.id, name: 'Buyers' }]);
    assert.deepEqual((await project.api.get('/contacts/fields/data.email/usage')).body.segments, []);
    const eventUsage = await project.api.get('/events/purchase/usage');
    assert.equal(eventUsage.status, 200, eventUsage.text);
    assert.deepEqual(eventUsage.body.segments, [{ id: byEvent.id, name: 'Buyers' }]);
    assert.deepEqual((await project.api.get('/events/email.opened/usage')).body.segments, [{ id: byEvent.id, name: 'Buyers' }]);
    assert.deepEqual((await project.api.get('/events/signup/usage')).body.segments, []);
  });
});
