import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { waitForJob } from '../kit/contact-jobs.ts';
import type { Client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('contact lookup and bulk operations', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function contact(api: Client, body: Record<string, unknown> = {}) {
    const res = await api.post('/contacts', { email: uniqueEmail('bulk'), ...body });
    assert.equal(res.status, 201, res.text);
    return res.body as { id: string; email: string };
  }

  async function eventNames(api: Client, contactId: string) {
    const res = await api.get(`/events?contactId=${contactId}&limit=100`);
    assert.equal(res.status, 200, res.text);
    return res.body.data.map((event: { name: string }) => event.name);
  }

  async function runBulk(api: Client, operation: string, contactIds: string[]) {
    const res = await api.post(`/contacts/bulk-${operation}`, { contactIds });
    assert.equal(res.status, 202, res.text);
    assert.match(res.body.jobId, /^[0-9a-f-]{36}$/);
    return waitForJob(api, `/contacts/bulk/${res.body.jobId}`);
  }

  test('POST /contacts/lookup answers each email in request order, case-insensitively', async () => {
    const { api } = await createProject(server.url);
    const other = await createProject(server.url);
    const ada = await contact(api);
    const bob = await contact(api);
    const elsewhere = await contact(other.api);
    const emails = [bob.email.toUpperCase(), 'nobody@example.test', ada.email, elsewhere.email, 'not an email'];
    const res = await api.post('/contacts/lookup', { emails });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data, [
      { email: emails[0], exists: true, id: bob.id },
      { email: 'nobody@example.test', exists: false },
      { email: ada.email, exists: true, id: ada.id },
      { email: elsewhere.email, exists: false },
      { email: 'not an email', exists: false },
    ]);
  });

  test('POST /contacts/lookup takes 1 to 500 emails', async () => {
    const { api } = await createProject(server.url);
    const tooMany = await api.post('/contacts/lookup', { emails: Array.from({ length: 501 }, (_, i) => `u${i}@example.test`) });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error.code, 'BAD_REQUEST');
    assert.match(tooMany.body.error.message, /1 to 500/);
    assert.equal(tooMany.body.error.errors[0].field, 'emails');
    assert.equal((await api.post('/contacts/lookup', { emails: [] })).status, 400);
    const full = await api.post('/contacts/lookup', { emails: Array.from({ length: 500 }, (_, i) => `u${i}@example.test`) });
    assert.equal(full.status, 200);
    assert.equal(full.body.data.length, 500);
    assert.equal((await api.post('/contacts/lookup', { emails: 'a@example.test' })).status, 422);
  });

  test('bulk-subscribe subscribes, ends snoozes, emits contact.subscribed only on change, and never touches other projects', async () => {
    const { api } = await createProject(server.url);
    const other = await createProject(server.url);
    const unsubscribed = await contact(api, { subscribed: false });
    const subscribed = await contact(api);
    const snoozed = await contact(api);
    const snooze = await api.patch(`/contacts/${snoozed.id}`, { snoozedUntil: new Date(Date.now() + 86_400_000).toISOString() });
    assert.equal(snooze.status, 200, snooze.text);
    assert.equal(snooze.body.subscribed, false);
    const foreign = await contact(other.api, { subscribed: false });
    const unknown = randomUUID();

    const job = await runBulk(api, 'subscribe', [unsubscribed.id, subscribed.id, snoozed.id, foreign.id, unknown, unsubscribed.id]);
    assert.equal(job.type, 'bulk-subscribe');
    assert.equal(job.status, 'completed');
    assert.deepEqual([job.total, job.processed, job.succeeded, job.failed], [5, 5, 3, 2], 'duplicate ids count once');
    assert.deepEqual(
      job.errors.sort((a: any, b: any) => a.id.localeCompare(b.id)),
      [foreign.id, unknown].sort().map((id) => ({ id, message: 'Contact not found' })),
    );
    assert.ok(Date.parse(job.createdAt) <= Date.parse(job.completedAt));

    for (const { id } of [unsubscribed, subscribed, snoozed]) {
      const res = await api.get(`/contacts/${id}`);
      assert.equal(res.body.subscribed, true);
      assert.equal(res.body.snoozedUntil, null);
    }
    assert.deepEqual(await eventNames(api, unsubscribed.id), ['contact.subscribed']);
    assert.deepEqual(await eventNames(api, snoozed.id), ['contact.subscribed', 'contact.unsubscribed'], 'newest first: the snooze, then the bulk subscribe');
    assert.deepEqual(await eventNames(api, subscribed.id), [], 'no event when unchanged');
    const untouched = await other.api.get(`/contacts/${foreign.id}`);
    assert.equal(untouched.body.subscribed, false, "another project's contact is untouched");
    assert.deepEqual(await eventNames(other.api, foreign.id), []);
  });

  test('bulk-unsubscribe unsubscribes and emits contact.unsubscribed only on change', async () => {
    const { api } = await createProject(server.url);
    const other = await createProject(server.url);
    const subscribed = await contact(api);
    const already = await contact(api, { subscribed: false });
    const foreign = await contact(other.api);

    const job = await runBulk(api, 'unsubscribe', [subscribed.id, already.id, foreign.id]);
    assert.equal(job.type, 'bulk-unsubscribe');
    assert.deepEqual([job.status, job.total, job.succeeded, job.failed], ['completed', 3, 2, 1]);
    assert.deepEqual(job.errors, [{ id: foreign.id, message: 'Contact not found' }]);
    assert.equal((await api.get(`/contacts/${subscribed.id}`)).body.subscribed, false);
    assert.deepEqual(await eventNames(api, subscribed.id), ['contact.unsubscribed']);
    assert.deepEqual(await eventNames(api, already.id), []);
    assert.equal((await other.api.get(`/contacts/${foreign.id}`)).body.subscribed, true);
  });

  test("bulk-delete deletes the project's contacts and reports the others as not found", async () => {
    const { api } = await createProject(server.url);
    const other = await createProject(server.url);
    const first = await contact(api);
    const second = await contact(api);
    const kept = await contact(api);
    const foreign = await contact(other.api);

    const job = await runBulk(api, 'delete', [first.id, second.id, foreign.id]);
    assert.equal(job.type, 'bulk-delete');
    assert.deepEqual([job.status, job.total, job.processed, job.succeeded, job.failed], ['completed', 3, 3, 2, 1]);
    assert.deepEqual(job.errors, [{ id: foreign.id, message: 'Contact not found' }]);
    assert.equal((await api.get(`/contacts/${first.id}`)).status, 404);
    assert.equal((await api.get(`/contacts/${second.id}`)).status, 404);
    assert.equal((await api.get(`/contacts/${kept.id}`)).status, 200);
    assert.equal((await other.api.get(`/contacts/${foreign.id}`)).status, 200, "another project's contact is not deleted");
  });

  test('bulk bodies take 1 to 1000 uuids: more or none is a 400, a malformed id a 422', async () => {
    const { api } = await createProject(server.url);
    for (const operation of ['subscribe', 'unsubscribe', 'delete']) {
      const tooMany = await api.post(`/contacts/bulk-${operation}`, { contactIds: Array.from({ length: 1001 }, () => randomUUID()) });
      assert.equal(tooMany.status, 400, `${operation}: ${tooMany.text}`);
      assert.equal(tooMany.body.error.code, 'BAD_REQUEST');
      assert.match(tooMany.body.error.message, /1 to 1000/);
      assert.equal((await api.post(`/contacts/bulk-${operation}`, { contactIds: [] })).status, 400);
    }
    const full = await api.post('/contacts/bulk-delete', { contactIds: Array.from({ length: 1000 }, () => randomUUID()) });
    assert.equal(full.status, 202);
    const job = await waitForJob(api, `/contacts/bulk/${full.body.jobId}`);
    assert.deepEqual([job.total, job.failed, job.errors.length], [1000, 1000, 100], 'only the first 100 errors are kept');

    const malformed = await api.post('/contacts/bulk-subscribe', { contactIds: ['nope'] });
    assert.equal(malformed.status, 422);
    assert.equal(malformed.body.error.errors[0].field, 'contactIds.0');
    assert.equal((await api.post('/contacts/bulk-subscribe', {})).status, 422);
  });

  test("GET /contacts/bulk/{jobId}: another project's job and unknown ids are 404", async () => {
    const owner = await createProject(server.url);
    const stranger = await createProject(server.url);
    const queued = await owner.api.post('/contacts/bulk-delete', { contactIds: [randomUUID()] });
    assert.equal(queued.status, 202);
    const mine = await owner.api.get(`/contacts/bulk/${queued.body.jobId}`);
    assert.equal(mine.status, 200);
    assert.ok(['queued', 'running', 'completed'].includes(mine.body.status));
    assert.equal((await stranger.api.get(`/contacts/bulk/${queued.body.jobId}`)).status, 404);
    assert.equal((await owner.api.get(`/contacts/bulk/${randomUUID()}`)).status, 404);
    assert.equal((await owner.api.get(`/contacts/import/${queued.body.jobId}`)).status, 404, 'a bulk job is not an import');
    assert.equal((await owner.api.get('/contacts/bulk/not-a-uuid')).status, 422);
    assert.equal((await owner.dashboard.get(`/contacts/bulk/${queued.body.jobId}`)).status, 200, 'a member session works too');
  });
});
