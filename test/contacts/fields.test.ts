import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { importCsv } from '../kit/contact-jobs.ts';
import type { Client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const STANDARD = ['id', 'email', 'subscribed', 'snoozedUntil', 'createdAt', 'updatedAt'];

describe('contact fields', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function seed(api: Client, contacts: Record<string, unknown>[]) {
    for (const data of contacts) {
      const res = await api.post('/contacts', { email: uniqueEmail('c'), data });
      assert.equal(res.status, 201, res.text);
    }
  }

  test('GET /contacts/fields: standard fields first, then custom ones with the majority type and coverage', async () => {
    const project = await createProject(server.url);
    await seed(project.api, [
      { plan: 'pro', seats: 3, vip: true, signedUpOn: '2024-05-01', lastSeen: '2024-05-01T10:00:00Z' },
      { plan: 'free', seats: 1, vip: false, signedUpOn: '2024-06-11' },
      { plan: 'pro', seats: 'many', signedUpOn: 'yesterday' },
      { seats: 2 },
    ]);
    const res = await project.api.get('/contacts/fields');
    assert.equal(res.status, 200, res.text);
    const fields = res.body.data as { name: string; type: string; standard: boolean; coverage: number }[];
    assert.deepEqual(
      fields.slice(0, 6).map((f) => f.name),
      STANDARD,
    );
    assert.ok(fields.slice(0, 6).every((f) => f.standard));
    const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
    assert.deepEqual(byName.email, { name: 'email', type: 'string', standard: true, coverage: 100 });
    assert.deepEqual(byName.subscribed, { name: 'subscribed', type: 'boolean', standard: true, coverage: 100 });
    assert.deepEqual(byName.snoozedUntil, { name: 'snoozedUntil', type: 'date', standard: true, coverage: 0 });
    assert.deepEqual(byName.createdAt, { name: 'createdAt', type: 'date', standard: true, coverage: 100 });
    assert.deepEqual(byName.plan, { name: 'plan', type: 'string', standard: false, coverage: 75 });
    assert.deepEqual(byName.seats, { name: 'seats', type: 'number', standard: false, coverage: 100 }, 'three numbers beat one string');
    assert.deepEqual(byName.vip, { name: 'vip', type: 'boolean', standard: false, coverage: 50 });
    assert.deepEqual(byName.signedUpOn, { name: 'signedUpOn', type: 'date', standard: false, coverage: 75 }, 'ISO dates count as date');
    assert.deepEqual(byName.lastSeen, { name: 'lastSeen', type: 'date', standard: false, coverage: 25 });
    assert.equal(fields.length, 11);
  });

  test('GET /contacts/fields is cached, and an import refreshes it', async () => {
    const project = await createProject(server.url);
    const empty = await project.api.get('/contacts/fields');
    assert.equal(empty.status, 200);
    assert.deepEqual(
      empty.body.data.map((f: any) => f.name),
      STANDARD,
      'no custom fields yet',
    );
    assert.ok(
      empty.body.data.every((f: any) => f.coverage === 0),
      'coverage is 0 without contacts',
    );

    // A contact written outside an import shows at the next background refresh, not at once.
    await seed(project.api, [{ company: 'Acme' }]);
    const cached = await project.api.get('/contacts/fields');
    assert.ok(!cached.body.data.some((f: any) => f.name === 'company'), 'served from the cache');

    const job = await importCsv(project.api, 'email,score\nimp1@example.test,10\nimp2@example.test,12.5\n');
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const refreshed = await project.api.get('/contacts/fields');
    const byName = Object.fromEntries(refreshed.body.data.map((f: any) => [f.name, f]));
    assert.deepEqual(byName.score, { name: 'score', type: 'number', standard: false, coverage: 66.7 });
    assert.deepEqual(byName.company, { name: 'company', type: 'string', standard: false, coverage: 33.3 });
  });

  test('a stale cache is served once more while a background job refreshes it', async () => {
    const project = await createProject(server.url);
    await seed(project.api, [{ tier: 'gold' }]);
    assert.ok((await project.api.get('/contacts/fields')).body.data.some((f: any) => f.name === 'tier'));
    await seed(project.api, [{ region: 'EU' }]);
    // Age the cache past its refresh interval instead of waiting minutes.
    await server.deps.db.query(`UPDATE contact_field_stats SET computed_at = now() - interval '1 hour' WHERE project_id = $1`, [project.id]);
    const stale = await project.api.get('/contacts/fields');
    assert.ok(!stale.body.data.some((f: any) => f.name === 'region'), 'the stale answer is served at once');
    const deadline = Date.now() + 15_000;
    let names: string[] = [];
    while (Date.now() < deadline) {
      names = (await project.api.get('/contacts/fields')).body.data.map((f: any) => f.name);
      if (names.includes('region')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(names.includes('region'), 'the background refresh picked up the new field');
  });

  test('GET /contacts/fields/{field}/values: distinct values, at most 100, `data.` prefix accepted', async () => {
    const project = await createProject(server.url);
    const rows = ['email,plan,n'];
    for (let i = 0; i < 150; i++) rows.push(`v${i}@example.test,${i % 3 === 0 ? 'pro' : 'free'},${i}`);
    const job = await importCsv(project.api, rows.join('\n'));
    assert.equal(job.succeeded, 150);

    const plan = await project.api.get('/contacts/fields/plan/values');
    assert.equal(plan.status, 200, plan.text);
    assert.equal(plan.body.field, 'plan');
    assert.deepEqual(plan.body.values, ['free', 'pro'], 'most frequent first');
    const prefixed = await project.api.get('/contacts/fields/data.plan/values');
    assert.deepEqual(prefixed.body, plan.body);

    const many = await project.api.get('/contacts/fields/n/values');
    assert.equal(many.body.values.length, 100);
    assert.ok(many.body.values.every((v: unknown) => typeof v === 'number'));
    assert.equal(new Set(many.body.values).size, 100);

    const unknown = await project.api.get('/contacts/fields/nothing/values');
    assert.deepEqual(unknown.body, { field: 'nothing', values: [] });
    const standard = await project.api.get('/contacts/fields/email/values');
    assert.equal(standard.status, 400);
  });

  test('GET /contacts/fields/{field}/usage answers the three lists', async () => {
    const project = await createProject(server.url);
    const res = await project.api.get('/contacts/fields/data.plan/usage');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { field: 'plan', segments: [], campaigns: [], workflows: [] });
  });

  test('DELETE /contacts/fields/{field} removes the key from every contact; standard 400, unknown 404', async () => {
    const project = await createProject(server.url);
    const other = await createProject(server.url);
    await seed(project.api, [{ plan: 'pro', city: 'Paris' }, { plan: 'free' }, { city: 'Rome' }]);
    await seed(other.api, [{ plan: 'pro' }]);
    assert.ok((await project.api.get('/contacts/fields')).body.data.some((f: any) => f.name === 'plan'));

    const res = await project.api.delete('/contacts/fields/plan');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { field: 'plan', updated: 2 });
    const list = await project.api.get('/contacts?limit=100');
    assert.equal(list.body.data.length, 3);
    assert.ok(list.body.data.every((c: any) => !('plan' in c.data)));
    assert.equal(list.body.data.filter((c: any) => c.data.city).length, 2, 'other keys stay');
    const fields = (await project.api.get('/contacts/fields')).body.data.map((f: any) => f.name);
    assert.ok(!fields.includes('plan') && fields.includes('city'), 'the cached list drops the field at once');
    const otherList = await other.api.get('/contacts');
    assert.equal(otherList.body.data[0].data.plan, 'pro', 'another project keeps its field');

    assert.equal((await project.api.delete('/contacts/fields/data.plan')).status, 404, 'gone now');
    const standard = await project.api.delete('/contacts/fields/email');
    assert.equal(standard.status, 400);
    assert.equal(standard.body.error.code, 'BAD_REQUEST');
    assert.equal((await project.api.delete('/contacts/fields/data.city')).body.updated, 2);
  });

  test('field endpoints need the secret key or a member session', async () => {
    const project = await createProject(server.url);
    assert.equal((await project.publicApi.get('/contacts/fields')).status, 401);
    assert.equal((await project.dashboard.get('/contacts/fields')).status, 200);
  });
});
