import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { uniqueDomain, verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

const TEMPLATE_KEYS = [
  'body',
  'createdAt',
  'description',
  'editorState',
  'format',
  'from',
  'fromName',
  'id',
  'name',
  'projectId',
  'replyTo',
  'source',
  'subject',
  'type',
  'updatedAt',
];

describe('templates (the API reference (Templates); docs/decisions/templates.md)', () => {
  let dns: DnsServer;
  let server: TestServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  /** A project with a verified sender domain, and a valid create body sending from it. */
  async function setup() {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const from = `hello@${domain.domain}`;
    const valid = { name: 'Welcome', subject: 'Hi {{ name ?? "there" }}', body: '<p>Hello {{ name }}</p>', from };
    return { project, domain, from, valid };
  }

  async function create(project: TestProject, body: Record<string, unknown>) {
    const res = await project.api.post('/templates', body);
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  test('POST /templates → 201 Template with defaults; GET /templates/{id} returns it; sessions work too', async () => {
    const { project, from, valid } = await setup();
    const res = await project.api.post('/templates', valid);
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(Object.keys(res.body).sort(), TEMPLATE_KEYS);
    assert.equal(res.body.name, 'Welcome');
    assert.equal(res.body.subject, valid.subject);
    assert.equal(res.body.body, valid.body);
    assert.equal(res.body.from, from);
    assert.equal(res.body.type, 'MARKETING');
    assert.equal(res.body.description, null);
    assert.equal(res.body.fromName, null);
    assert.equal(res.body.replyTo, null);
    assert.equal(res.body.projectId, project.id);
    assert.ok(!Number.isNaN(Date.parse(res.body.createdAt)));

    const full = await project.dashboard.post('/templates', { ...valid, description: 'internal', fromName: 'Acme', replyTo: 'support@elsewhere.test', type: 'TRANSACTIONAL' });
    assert.equal(full.status, 201, full.text);
    assert.deepEqual([full.body.description, full.body.fromName, full.body.replyTo, full.body.type], ['internal', 'Acme', 'support@elsewhere.test', 'TRANSACTIONAL']);

    const got = await project.api.get(`/templates/${res.body.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(got.body, res.body);
    assert.equal((await client(server.url).get(`/templates/${res.body.id}`)).status, 401);
  });

  test('a missing required field is a flat 400 { error } naming it', async () => {
    const { project, valid } = await setup();
    for (const field of ['name', 'subject', 'body', 'from'] as const) {
      const { [field]: _omitted, ...body } = valid;
      const res = await project.api.post('/templates', body);
      assert.equal(res.status, 400, field);
      assert.deepEqual(Object.keys(res.body), ['error']);
      assert.equal(typeof res.body.error, 'string');
      assert.match(res.body.error, new RegExp(`\\b${field}\\b`));
    }
  });

  test('wrong types, bad emails and bad enums are 422 with field errors', async () => {
    const { project, valid } = await setup();
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...valid, name: 5 }, 'name', 'invalid_type'],
      [{ ...valid, subject: ['x'] }, 'subject', 'invalid_type'],
      [{ ...valid, from: 'not-an-email' }, 'from', 'invalid_string'],
      [{ ...valid, replyTo: 'nope' }, 'replyTo', 'invalid_string'],
      [{ ...valid, type: 'NEWSLETTER' }, 'type', 'invalid_enum_value'],
      [{ ...valid, name: '   ' }, 'name', 'too_small'],
      [{ ...valid, fromName: 'Acme\r\nBcc: x@y.test' }, 'fromName', 'custom'],
    ];
    for (const [body, field, code] of cases) {
      const res = await project.api.post('/templates', body);
      assert.equal(res.status, 422, `${field}: ${res.text}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.deepEqual(
        res.body.error.errors.map((e: any) => [e.field, e.code]),
        [[field, code]],
      );
    }
  });

  test('broken Liquid in the subject or body is a 400 naming line and column', async () => {
    const { project, valid } = await setup();
    const body = await project.api.post('/templates', { ...valid, body: '<p>Hi</p>\n<p>{% if vip %}VIP</p>' });
    assert.equal(body.status, 400);
    assert.equal(body.body.error.code, 'TEMPLATE_SYNTAX_ERROR');
    assert.deepEqual(body.body.error.details, { field: 'body', line: 2, column: 4 });
    assert.match(body.body.error.message, /line 2, column 4/);

    const subject = await project.api.post('/templates', { ...valid, subject: 'Hi {{ name | shout }}' });
    assert.equal(subject.status, 400);
    assert.deepEqual(subject.body.error.details, { field: 'subject', line: 1, column: 4 });

    const template = await create(project, valid);
    const patched = await project.api.patch(`/templates/${template.id}`, { body: 'ok\n\n  {{ name ' });
    assert.equal(patched.status, 400);
    assert.deepEqual(patched.body.error.details, { field: 'body', line: 3, column: 3 });
    assert.equal((await project.api.get(`/templates/${template.id}`)).body.body, valid.body);
  });

  test('a sender whose domain is not verified in the project is refused with 403; a subdomain of a verified one is allowed', async () => {
    const { project, domain, valid } = await setup();
    const unverified = await project.api.post('/templates', { ...valid, from: `hello@${uniqueDomain()}` });
    assert.equal(unverified.status, 403);
    assert.equal(unverified.body.error.code, 'SENDER_DOMAIN_NOT_VERIFIED');

    const pending = uniqueDomain('pending');
    assert.equal((await project.api.post('/domains', { domain: pending })).status, 201);
    assert.equal((await project.api.post('/templates', { ...valid, from: `hello@${pending}` })).status, 403);

    // Verified in another project does not count here.
    const other = await createProject(server.url);
    const elsewhere = await verifiedDomain(other, dns);
    assert.equal((await project.api.post('/templates', { ...valid, from: `hello@${elsewhere.domain}` })).status, 403);

    const sub = await project.api.post('/templates', { ...valid, from: `news@eu.${domain.domain}` });
    assert.equal(sub.status, 201, sub.text);

    const patched = await project.api.patch(`/templates/${sub.body.id}`, { from: `hello@${pending}` });
    assert.equal(patched.status, 403);
    assert.equal(patched.body.error.code, 'SENDER_DOMAIN_NOT_VERIFIED');
  });

  test('PATCH /templates/{id} changes only the fields given; null clears an optional field', async () => {
    const { project, domain, valid } = await setup();
    const template = await create(project, { ...valid, description: 'note', fromName: 'Acme', replyTo: 'r@x.test' });
    const res = await project.api.patch(`/templates/${template.id}`, { name: 'Renamed', type: 'HEADLESS', description: null, from: `team@${domain.domain}` });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(
      [res.body.name, res.body.type, res.body.description, res.body.from, res.body.fromName, res.body.replyTo, res.body.subject, res.body.body],
      ['Renamed', 'HEADLESS', null, `team@${domain.domain}`, 'Acme', 'r@x.test', valid.subject, valid.body],
    );
    assert.equal(res.body.createdAt, template.createdAt);
    assert.ok(Date.parse(res.body.updatedAt) >= Date.parse(template.updatedAt));
    assert.deepEqual((await project.api.get(`/templates/${template.id}`)).body, res.body);

    const empty = await project.api.patch(`/templates/${template.id}`, {});
    assert.equal(empty.status, 200);
    assert.equal(empty.body.name, 'Renamed');

    const nullName = await project.api.patch(`/templates/${template.id}`, { name: null });
    assert.equal(nullName.status, 422);
    assert.deepEqual(
      nullName.body.error.errors.map((e: any) => [e.field, e.code]),
      [['name', 'invalid_type']],
    );
    const badEmail = await project.api.patch(`/templates/${template.id}`, { replyTo: 'nope' });
    assert.equal(badEmail.status, 422);
  });

  test('DELETE → 204, then 404; duplicate → 201 { id } of a copy; usage lists nothing yet', async () => {
    const { project, valid } = await setup();
    const template = await create(project, { ...valid, description: 'd', fromName: 'Acme', type: 'TRANSACTIONAL' });

    const dup = await project.api.post(`/templates/${template.id}/duplicate`);
    assert.equal(dup.status, 201, dup.text);
    assert.deepEqual(Object.keys(dup.body), ['id']);
    assert.notEqual(dup.body.id, template.id);
    const copy = (await project.api.get(`/templates/${dup.body.id}`)).body;
    assert.equal(copy.name, 'Welcome (copy)');
    for (const field of ['description', 'subject', 'body', 'from', 'fromName', 'replyTo', 'type', 'projectId']) assert.equal(copy[field], template[field], field);

    const usage = await project.api.get(`/templates/${template.id}/usage`);
    assert.equal(usage.status, 200);
    assert.deepEqual(usage.body, { campaigns: [], workflows: [] });

    assert.equal((await project.api.delete(`/templates/${template.id}`)).status, 204);
    assert.equal((await project.api.get(`/templates/${template.id}`)).status, 404);
    assert.equal((await project.api.delete(`/templates/${template.id}`)).status, 404);
    assert.equal((await project.api.get(`/templates/${dup.body.id}`)).status, 200);
  });

  test("another project's template is 404 on every endpoint; a non-UUID id is 422", async () => {
    const { project, valid } = await setup();
    const template = await create(project, valid);
    const stranger = await createProject(server.url);
    const paths = [
      ['get', `/templates/${template.id}`],
      ['patch', `/templates/${template.id}`],
      ['delete', `/templates/${template.id}`],
      ['post', `/templates/${template.id}/duplicate`],
      ['get', `/templates/${template.id}/usage`],
    ] as const;
    for (const [method, path] of paths) {
      const res = method === 'patch' ? await stranger.api.patch(path, { name: 'x' }) : await stranger.api[method](path);
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(res.body.error.code, 'NOT_FOUND');
      const missing = path.replace(template.id, randomUUID());
      assert.equal((method === 'patch' ? await project.api.patch(missing, { name: 'x' }) : await project.api[method](missing)).status, 404);
      const malformed = path.replace(template.id, 'not-a-uuid');
      const bad = method === 'patch' ? await project.api.patch(malformed, { name: 'x' }) : await project.api[method](malformed);
      assert.equal(bad.status, 422, `${method} ${malformed}`);
      assert.equal(bad.body.error.errors[0].field, 'id');
    }
    assert.equal((await project.api.get(`/templates/${template.id}`)).body.name, 'Welcome');
    assert.deepEqual((await stranger.api.get('/templates')).body.data, []);
  });

  test('GET /templates pages by page and pageSize with total and totalPages; pageSize is clamped to 100', async () => {
    const { project, valid } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create(project, { ...valid, name: `T${i}` })).id);
    const newestFirst = [...ids].reverse();

    const first = await project.api.get('/templates?pageSize=2');
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), ['data', 'page', 'pageSize', 'total', 'totalPages']);
    assert.deepEqual([first.body.total, first.body.page, first.body.pageSize, first.body.totalPages], [5, 1, 2, 3]);
    assert.deepEqual(
      first.body.data.map((t: any) => t.id),
      newestFirst.slice(0, 2),
    );
    const third = await project.api.get('/templates?pageSize=2&page=3');
    assert.deepEqual(
      third.body.data.map((t: any) => t.id),
      newestFirst.slice(4),
    );
    const beyond = await project.api.get('/templates?pageSize=2&page=4');
    assert.deepEqual([beyond.body.data, beyond.body.total, beyond.body.page], [[], 5, 4]);

    const defaults = await project.api.get('/templates');
    assert.deepEqual([defaults.body.page, defaults.body.pageSize, defaults.body.totalPages, defaults.body.data.length], [1, 20, 1, 5]);
    assert.equal((await project.api.get('/templates?pageSize=1000')).body.pageSize, 100);
    for (const query of ['page=0', 'pageSize=0', 'page=abc', 'pageSize=-1']) {
      const res = await project.api.get(`/templates?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
    }
  });

  test('GET /templates sorts by name, createdAt or updatedAt in either direction; unknown values fall back', async () => {
    const { project, valid } = await setup();
    const b = await create(project, { ...valid, name: 'banana' });
    const a = await create(project, { ...valid, name: 'Apple' });
    const c = await create(project, { ...valid, name: 'cherry' });
    const order = async (query: string) => (await project.api.get(`/templates?${query}`)).body.data.map((t: any) => t.name);

    assert.deepEqual(await order('sort=name&dir=asc'), ['Apple', 'banana', 'cherry']);
    assert.deepEqual(await order('sort=name'), ['cherry', 'banana', 'Apple']);
    assert.deepEqual(await order('sort=createdAt&dir=asc'), ['banana', 'Apple', 'cherry']);
    assert.deepEqual(await order(''), ['cherry', 'Apple', 'banana']);
    assert.deepEqual(await order('sort=bogus&dir=asc'), ['banana', 'Apple', 'cherry']);
    assert.deepEqual(await order('sort=name&dir=sideways'), ['cherry', 'banana', 'Apple']);

    assert.equal((await project.api.patch(`/templates/${b.id}`, { description: 'touched' })).status, 200);
    assert.deepEqual(await order('sort=updatedAt'), ['banana', 'cherry', 'Apple']);
    assert.deepEqual(await order('sort=updatedAt&dir=asc'), ['Apple', 'cherry', 'banana']);
    assert.ok(a.id && c.id);
  });

  test('GET /templates filters by type and searches name, description and subject case-insensitively', async () => {
    const { project, valid } = await setup();
    await create(project, { ...valid, name: 'Receipt', type: 'TRANSACTIONAL', subject: 'Your order' });
    await create(project, { ...valid, name: 'Spring sale', description: 'Seasonal PROMO', subject: 'Deals' });
    await create(project, { ...valid, name: 'Digest', type: 'HEADLESS', subject: 'Weekly promo digest' });
    await create(project, { ...valid, name: '100% off', subject: 'Big' });
    const names = async (query: string) => {
      const res = await project.api.get(`/templates?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body.data.map((t: any) => t.name).sort();
    };

    assert.deepEqual(await names('type=TRANSACTIONAL'), ['Receipt']);
    assert.deepEqual(await names('type=MARKETING'), ['100% off', 'Spring sale']);
    assert.deepEqual(await names('search=promo'), ['Digest', 'Spring sale']);
    assert.deepEqual(await names('search=RECEIPT'), ['Receipt']);
    assert.deepEqual(await names('search=ORDER'), ['Receipt']);
    assert.deepEqual(await names('search=promo&type=HEADLESS'), ['Digest']);
    assert.deepEqual(await names(`search=${encodeURIComponent('0%')}`), ['100% off']);
    assert.deepEqual(await names(`search=${encodeURIComponent('%')}`), ['100% off']);
    assert.deepEqual(await names('search=nothing-matches'), []);
    assert.equal((await project.api.get('/templates?search=promo')).body.total, 2);

    const unknownType = await project.api.get('/templates?type=NEWSLETTER');
    assert.equal(unknownType.status, 400);
    assert.equal(unknownType.body.error.code, 'BAD_REQUEST');
  });
});
