import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { type ApiResponse, type Client, client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('contacts API', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('POST /contacts creates (201), then upserts by email (200) with _meta', async () => {
    const { api } = await createProject(server.url);
    const created = await api.post('/contacts', { email: '  Ada@Example.TEST ', data: { plan: 'pro', seats: 3 } });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.body).sort(), ['_meta', 'createdAt', 'data', 'email', 'id', 'snoozedUntil', 'subscribed', 'updatedAt']);
    assert.equal(created.body.email, 'ada@example.test');
    assert.equal(created.body.subscribed, true, 'a new contact is subscribed unless passed');
    assert.equal(created.body.snoozedUntil, null);
    assert.deepEqual(created.body.data, { plan: 'pro', seats: 3 });
    assert.match(created.body.createdAt, ISO);
    assert.deepEqual(created.body._meta, { isNew: true, isUpdate: false });

    const updated = await api.post('/contacts', { email: 'ada@example.test', data: { plan: null, seats: '', city: 'Paris', id: 'x', email: 'y' } });
    assert.equal(updated.status, 200);
    assert.equal(updated.body.id, created.body.id);
    assert.deepEqual(updated.body._meta, { isNew: false, isUpdate: true });
    assert.deepEqual(updated.body.data, { seats: 3, city: 'Paris' }, 'null deletes, empty string keeps, reserved keys dropped');
    assert.equal(updated.body.subscribed, true, 'unchanged when not passed');

    const unsubscribedNew = await api.post('/contacts', { email: uniqueEmail(), subscribed: false });
    assert.equal(unsubscribedNew.status, 201);
    assert.equal(unsubscribedNew.body.subscribed, false);
  });

  test('POST /contacts: missing email is a flat 400; bad input is a 422 with dot paths', async () => {
    const { api } = await createProject(server.url);
    const missing = await api.post('/contacts', { data: { a: 1 } });
    assert.equal(missing.status, 400);
    assert.deepEqual(Object.keys(missing.body), ['error']);
    assert.equal(typeof missing.body.error, 'string');

    const bad = await api.post('/contacts', { email: 'not-an-email', subscribed: 'yes', data: { nested: { a: 1 }, list: [1] } });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
    const fields = Object.fromEntries(bad.body.error.errors.map((e: any) => [e.field, e.code]));
    assert.equal(fields.email, 'invalid_string');
    assert.equal(fields.subscribed, 'invalid_type');

    const badData = await api.post('/contacts', { email: uniqueEmail(), data: { nested: { a: 1 }, list: [1], once: { value: 1, persistent: false } } });
    assert.equal(badData.status, 422);
    assert.deepEqual(badData.body.error.errors.map((e: any) => e.field).sort(), ['data.list', 'data.nested', 'data.once']);

    const wrongType = await api.post('/contacts', { email: 42, data: 'x' });
    assert.equal(wrongType.status, 422);
    assert.deepEqual(wrongType.body.error.errors.map((e: any) => [e.field, e.code, e.received]).sort(), [
      ['data', 'invalid_type', 'string'],
      ['email', 'invalid_type', 'number'],
    ]);
  });

  test('GET, PATCH and DELETE /contacts/{id}', async () => {
    const { api } = await createProject(server.url);
    const { body: contact } = await api.post('/contacts', { email: uniqueEmail(), data: { a: 1, b: 2 } });
    const got = await api.get(`/contacts/${contact.id}`);
    assert.equal(got.status, 200);
    const { _meta, ...plain } = contact;
    assert.deepEqual(got.body, plain);

    const newEmail = uniqueEmail('Renamed').toUpperCase();
    const patched = await api.patch(`/contacts/${contact.id}`, { email: newEmail, data: { a: null, c: 'x' } });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.email, newEmail.toLowerCase());
    assert.deepEqual(patched.body.data, { b: 2, c: 'x' }, 'patch semantics: other keys kept');
    assert.ok(Date.parse(patched.body.updatedAt) >= Date.parse(contact.updatedAt));

    const oneOff = await api.patch(`/contacts/${contact.id}`, { data: { x: { value: 1, persistent: false } } });
    assert.equal(oneOff.status, 422, 'one-off values only on send and track');
    assert.equal(oneOff.body.error.errors[0].field, 'data.x');

    const deleted = await api.delete(`/contacts/${contact.id}`);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.text, '');
    assert.equal((await api.get(`/contacts/${contact.id}`)).status, 404);
    assert.equal((await api.delete(`/contacts/${contact.id}`)).status, 404);
    assert.equal((await api.patch(`/contacts/${contact.id}`, { subscribed: false })).status, 404);
  });

  test('PATCH to an email another contact has is a 409', async () => {
    const { api } = await createProject(server.url);
    const first = await api.post('/contacts', { email: uniqueEmail() });
    const second = await api.post('/contacts', { email: uniqueEmail() });
    const clash = await api.patch(`/contacts/${second.body.id}`, { email: first.body.email.toUpperCase() });
    assert.equal(clash.status, 409);
    assert.equal(clash.body.success, false);
    assert.equal(clash.body.error.statusCode, 409);
    const same = await api.patch(`/contacts/${first.body.id}`, { email: first.body.email });
    assert.equal(same.status, 200, 'its own email is no conflict');
  });

  test("path ids that are not UUIDs are a 422; other projects' contacts are a 404", async () => {
    const mine = await createProject(server.url);
    const theirs = await createProject(server.url);
    const bad = await mine.api.get('/contacts/not-a-uuid');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.error.errors[0].field, 'id');
    assert.equal((await mine.api.patch('/contacts/123', {})).status, 422);
    assert.equal((await mine.api.delete('/contacts/123')).status, 422);

    const { body: other } = await theirs.api.post('/contacts', { email: uniqueEmail() });
    assert.equal((await mine.api.get(`/contacts/${other.id}`)).status, 404);
    assert.equal((await mine.api.patch(`/contacts/${other.id}`, { subscribed: false })).status, 404);
    assert.equal((await mine.api.delete(`/contacts/${other.id}`)).status, 404);
    assert.equal((await mine.api.get(`/contacts/${randomUUID()}`)).status, 404);
    assert.equal((await theirs.api.get(`/contacts/${other.id}`)).status, 200, 'untouched');
  });

  test('keys: a public key on /contacts is a 401 INVALID_API_KEY; the dashboard session works', async () => {
    const project = await createProject(server.url);
    for (const res of [await project.publicApi.get('/contacts'), await project.publicApi.post('/contacts', { email: uniqueEmail() })]) {
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_API_KEY');
    }
    const noKey = await client(server.url).get('/contacts');
    assert.equal(noKey.status, 401);
    assert.equal(noKey.body.error.code, 'INVALID_API_KEY');
    const viaSession = await project.dashboard.post('/contacts', { email: uniqueEmail() });
    assert.equal(viaSession.status, 201);
    assert.equal((await project.dashboard.get('/contacts')).body.total, 1);
  });

  /** Walks every page of GET /contacts with `query`, calling `between` after each page. */
  async function walk(api: Client, query: string, between: () => Promise<void> = async () => {}) {
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: ApiResponse = await api.get(`/contacts?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200, res.text);
      if (pages > 0) assert.equal(res.body.total, 0, 'total only on the first page');
      assert.equal(res.body.hasMore, res.body.cursor !== null);
      seen.push(...res.body.data);
      cursor = res.body.cursor;
      pages++;
      await between();
    } while (cursor);
    return { seen, pages };
  }

  const createMany = async (api: Client, emails: string[], extra: Record<string, unknown> = {}) => {
    const ids: string[] = [];
    for (let i = 0; i < emails.length; i += 10) {
      const batch = await Promise.all(emails.slice(i, i + 10).map((email) => api.post('/contacts', { email, ...extra })));
      for (const res of batch) {
        assert.equal(res.status, 201, res.text);
        ids.push(res.body.id);
      }
    }
    return ids;
  };

  test('GET /contacts: limit defaults to 20, 1000 is clamped to 100, total on the first page', async () => {
    const { api } = await createProject(server.url);
    await createMany(
      api,
      Array.from({ length: 105 }, () => uniqueEmail()),
    );
    const first = await api.get('/contacts');
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body).sort(), ['cursor', 'data', 'hasMore', 'total']);
    assert.equal(first.body.data.length, 20);
    assert.equal(first.body.total, 105);
    assert.equal(first.body.hasMore, true);
    const clamped = await api.get('/contacts?limit=1000');
    assert.equal(clamped.status, 200);
    assert.equal(clamped.body.data.length, 100);
    const rest = await api.get(`/contacts?limit=1000&cursor=${encodeURIComponent(clamped.body.cursor)}`);
    assert.equal(rest.body.data.length, 5);
    assert.equal(rest.body.hasMore, false);
    assert.equal(rest.body.cursor, null);
    assert.equal(rest.body.total, 0);
    // Default order: newest first (dir desc).
    const times = first.body.data.map((c: any) => Date.parse(c.createdAt));
    assert.deepEqual(
      times,
      [...times].sort((a, b) => b - a),
    );
  });

  for (const order of ['sort=createdAt&dir=asc', 'sort=createdAt&dir=desc', 'sort=email&dir=asc', 'sort=email&dir=desc']) {
    test(`GET /contacts?${order}: no duplicates or gaps while contacts are added between pages`, async () => {
      const { api } = await createProject(server.url);
      const original = await createMany(
        api,
        Array.from({ length: 23 }, (_, i) => `${String.fromCharCode(97 + (i % 26))}${i}-${uniqueEmail()}`),
      );
      const { seen, pages } = await walk(api, `limit=5&${order}`, async () => {
        await createMany(api, [`${String.fromCharCode(97 + Math.floor(Math.random() * 26))}-${uniqueEmail()}`]);
      });
      const ids = seen.map((c) => c.id);
      assert.equal(new Set(ids).size, ids.length, 'no duplicates');
      for (const id of original) assert.ok(ids.includes(id), 'no gaps');
      assert.ok(pages >= 5);
      const [sort, dir] = order.split('&').map((part) => part.split('=')[1]);
      // By email, only the leading letter is compared: collations agree on it, not on punctuation.
      const keys = seen.filter((c) => original.includes(c.id)).map((c) => (sort === 'email' ? c.email[0] : c.createdAt));
      const sorted = [...keys].sort();
      assert.deepEqual(keys, dir === 'asc' ? sorted : sorted.reverse(), `ordered by ${sort} ${dir}`);
    });
  }

  test('GET /contacts: search, subscribed filter, unknown sort/dir fall back to createdAt desc', async () => {
    const { api } = await createProject(server.url);
    const tag = `needle${Date.now()}`;
    await createMany(api, [`${tag}-a@example.test`, `x-${tag}-b@example.test`], { subscribed: false });
    await createMany(api, [`${tag}_c@example.test`, uniqueEmail(), uniqueEmail()]);
    const found = await api.get(`/contacts?search=${tag.toUpperCase()}`);
    assert.equal(found.body.total, 3);
    assert.ok(found.body.data.every((c: any) => c.email.includes(tag)));
    const literal = await api.get(`/contacts?search=${encodeURIComponent(`${tag}_`)}`);
    assert.deepEqual(
      literal.body.data.map((c: any) => c.email),
      [`${tag}_c@example.test`],
      '_ is a literal character, not a wildcard',
    );
    const percent = await api.get(`/contacts?search=${encodeURIComponent('%')}`);
    assert.equal(percent.body.total, 0);
    assert.equal((await api.get('/contacts?subscribed=false')).body.total, 2);
    assert.equal((await api.get('/contacts?subscribed=true')).body.total, 3);
    assert.equal((await api.get('/contacts')).body.total, 5);
    assert.equal((await api.get(`/contacts?subscribed=false&search=x-${tag}`)).body.total, 1);
    const fallback = await api.get('/contacts?sort=bogus&dir=sideways');
    assert.equal(fallback.status, 200);
    const newestFirst = await api.get('/contacts?sort=createdAt&dir=desc');
    assert.deepEqual(
      fallback.body.data.map((c: any) => c.id),
      newestFirst.body.data.map((c: any) => c.id),
    );
  });

  test('GET /contacts: garbage, tampered or mismatched cursors and bad query values are 400', async () => {
    const { api } = await createProject(server.url);
    await createMany(api, [uniqueEmail(), uniqueEmail(), uniqueEmail()]);
    const { body } = await api.get('/contacts?limit=1');
    const cursor: string = body.cursor;
    const [payload, signature] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify(['createdAt', 'desc', '2999-01-01T00:00:00.000000Z', randomUUID()])).toString('base64url');
    const flipped = signature!.slice(0, -2) + (signature!.endsWith('AA') ? 'BB' : 'AA');
    for (const bad of ['garbage', '', '...', 'eyJ4Ijox', `${forged}.${signature}`, `${payload}.${flipped}`, `${payload}`, '%00%ff']) {
      const res = await api.get(`/contacts?cursor=${bad === '%00%ff' ? bad : encodeURIComponent(bad)}`);
      if (bad === '') continue; // an empty cursor means the first page
      assert.equal(res.status, 400, `cursor ${bad}: ${res.text}`);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
    }
    const otherSort = await api.get(`/contacts?sort=email&cursor=${encodeURIComponent(cursor)}`);
    assert.equal(otherSort.status, 400, 'a cursor belongs to its sort and direction');
    for (const query of ['limit=0', 'limit=-5', 'limit=abc', 'limit=2.5', 'subscribed=maybe']) {
      const res = await api.get(`/contacts?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
    }
    const next = await api.get(`/contacts?limit=1&cursor=${encodeURIComponent(cursor)}`);
    assert.equal(next.status, 200);
    assert.notEqual(next.body.data[0].id, body.data[0].id);
  });
});
