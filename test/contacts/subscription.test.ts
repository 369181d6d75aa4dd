import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import type { Client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/** The names of a contact's events, oldest first. */
async function eventNames(api: Client, contactId: string): Promise<string[]> {
  const res = await api.get(`/events/contact/${contactId}?limit=100`);
  assert.equal(res.status, 200, res.text);
  return res.body.data.map((event: any) => event.name).reverse();
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('contact subscription and snooze (the API reference (Contact) subscription; docs/decisions/contacts-and-events.md)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  const newContact = async (project: TestProject, body: Record<string, unknown> = {}) => {
    const res = await project.api.post('/contacts', { email: uniqueEmail(), ...body });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  test('PATCH emits contact.unsubscribed / contact.subscribed exactly when subscribed changes', async () => {
    const project = await createProject(server.url);
    const contact = await newContact(project);
    assert.deepEqual(await eventNames(project.api, contact.id), [], 'creating a contact emits nothing');
    await project.api.patch(`/contacts/${contact.id}`, { subscribed: true });
    await project.api.patch(`/contacts/${contact.id}`, { data: { a: 1 } });
    assert.deepEqual(await eventNames(project.api, contact.id), [], 'no change, no event');
    const off = await project.api.patch(`/contacts/${contact.id}`, { subscribed: false });
    assert.equal(off.body.subscribed, false);
    await project.api.patch(`/contacts/${contact.id}`, { subscribed: false });
    await project.api.patch(`/contacts/${contact.id}`, { subscribed: true });
    assert.deepEqual(await eventNames(project.api, contact.id), ['contact.unsubscribed', 'contact.subscribed']);
    const events = (await project.api.get(`/events/contact/${contact.id}`)).body.data;
    assert.equal(events[0].contactId, contact.id);
    assert.equal(events[0].email, contact.email);
  });

  test('POST /contacts upsert and /v1/track emit on change only; new contacts emit nothing', async () => {
    const project = await createProject(server.url);
    const contact = await newContact(project, { subscribed: false });
    await project.api.post('/contacts', { email: contact.email });
    await project.api.post('/contacts', { email: contact.email, subscribed: false });
    assert.deepEqual(await eventNames(project.api, contact.id), []);
    const upserted = await project.api.post('/contacts', { email: contact.email, subscribed: true });
    assert.equal(upserted.status, 200);
    assert.deepEqual(await eventNames(project.api, contact.id), ['contact.subscribed']);

    const tracked = await project.publicApi.post('/v1/track', { email: contact.email, event: 'signup', subscribed: false });
    assert.equal(tracked.status, 200, tracked.text);
    await project.publicApi.post('/v1/track', { email: contact.email, event: 'login' });
    const names = await eventNames(project.api, contact.id);
    assert.deepEqual(names.slice(0, 1), ['contact.subscribed']);
    assert.deepEqual(names.slice(1, 3).sort(), ['contact.unsubscribed', 'signup'], 'the change is recorded with the tracked event');
    assert.equal(names[3], 'login');
    assert.equal((await project.api.get(`/contacts/${contact.id}`)).body.subscribed, false, 'track without subscribed leaves it');

    const fresh = await project.publicApi.post('/v1/track', { email: uniqueEmail(), event: 'signup', subscribed: false });
    assert.deepEqual(await eventNames(project.api, fresh.body.data.contact), ['signup'], 'a new contact gets no subscription event');
  });

  test('a snooze unsubscribes now and resubscribes when it ends, with events', async () => {
    const project = await createProject(server.url);
    const contact = await newContact(project);
    const until0 = new Date(Date.now() + 2000).toISOString();
    const snoozed = await project.api.patch(`/contacts/${contact.id}`, { snoozedUntil: until0 });
    assert.equal(snoozed.status, 200, snoozed.text);
    assert.equal(snoozed.body.subscribed, false);
    assert.equal(snoozed.body.snoozedUntil, until0);
    assert.deepEqual(await eventNames(project.api, contact.id), ['contact.unsubscribed']);

    const woken = await until('the snooze to end', async () => {
      const res = await project.api.get(`/contacts/${contact.id}`);
      return res.body.subscribed ? res.body : undefined;
    });
    assert.equal(woken.snoozedUntil, null);
    assert.ok(Date.now() >= Date.parse(until0), 'not before the snooze ends');
    assert.deepEqual(await eventNames(project.api, contact.id), ['contact.unsubscribed', 'contact.subscribed']);
  });

  test('snoozedUntil null ends a snooze at once; subscribed true ends it; subscribed false makes it permanent', async () => {
    const project = await createProject(server.url);
    const later = () => new Date(Date.now() + 60 * 60 * 1000).toISOString();

    const a = await newContact(project);
    await project.api.patch(`/contacts/${a.id}`, { snoozedUntil: later() });
    const ended = await project.api.patch(`/contacts/${a.id}`, { snoozedUntil: null });
    assert.equal(ended.body.subscribed, true);
    assert.equal(ended.body.snoozedUntil, null);
    assert.deepEqual(await eventNames(project.api, a.id), ['contact.unsubscribed', 'contact.subscribed']);

    const b = await newContact(project);
    await project.api.patch(`/contacts/${b.id}`, { snoozedUntil: later() });
    const resubscribed = await project.api.patch(`/contacts/${b.id}`, { subscribed: true });
    assert.equal(resubscribed.body.subscribed, true);
    assert.equal(resubscribed.body.snoozedUntil, null);

    const c = await newContact(project, { subscribed: false });
    const noSnooze = await project.api.patch(`/contacts/${c.id}`, { snoozedUntil: null });
    assert.equal(noSnooze.body.subscribed, false, 'null does not subscribe a contact that was not snoozed');
    assert.deepEqual(await eventNames(project.api, c.id), []);
    const snoozeUnsubscribed = await project.api.patch(`/contacts/${c.id}`, { snoozedUntil: later() });
    assert.equal(snoozeUnsubscribed.body.subscribed, false);
    assert.deepEqual(await eventNames(project.api, c.id), [], 'already unsubscribed: no event');

    // A snooze made permanent by subscribed:false is not resubscribed by its (earlier) end job:
    // d's job is due before e's, so once e is resubscribed d's job has run.
    const d = await newContact(project);
    await project.api.patch(`/contacts/${d.id}`, { snoozedUntil: new Date(Date.now() + 1500).toISOString() });
    const permanent = await project.api.patch(`/contacts/${d.id}`, { subscribed: false });
    assert.equal(permanent.body.snoozedUntil, null);
    const e = await newContact(project);
    await project.api.patch(`/contacts/${e.id}`, { snoozedUntil: new Date(Date.now() + 2500).toISOString() });
    await until('e to wake', async () => ((await project.api.get(`/contacts/${e.id}`)).body.subscribed ? true : undefined));
    assert.equal((await project.api.get(`/contacts/${d.id}`)).body.subscribed, false);
    assert.deepEqual(await eventNames(project.api, d.id), ['contact.unsubscribed']);
  });

  test('bad snoozes are refused with 422', async () => {
    const project = await createProject(server.url);
    const contact = await newContact(project);
    const past = await project.api.patch(`/contacts/${contact.id}`, { snoozedUntil: new Date(Date.now() - 1000).toISOString() });
    assert.equal(past.status, 422);
    assert.equal(past.body.error.errors[0].field, 'snoozedUntil');
    const garbage = await project.api.patch(`/contacts/${contact.id}`, { snoozedUntil: 'tomorrow' });
    assert.equal(garbage.status, 422);
    assert.equal(garbage.body.error.errors[0].code, 'invalid_string');
    const both = await project.api.patch(`/contacts/${contact.id}`, { snoozedUntil: new Date(Date.now() + 60_000).toISOString(), subscribed: true });
    assert.equal(both.status, 422);
    const unchanged = await project.api.get(`/contacts/${contact.id}`);
    assert.equal(unchanged.body.subscribed, true);
    assert.equal(unchanged.body.snoozedUntil, null);
  });

  test('concurrent writes: one contact per email, and subscription events that match the changes', async () => {
    const project = await createProject(server.url);
    const email = uniqueEmail();
    const creates = await Promise.all(Array.from({ length: 10 }, (_, i) => project.publicApi.post('/v1/track', { email, event: `e${i}` })));
    assert.deepEqual(
      creates.map((res) => res.status),
      Array(10).fill(200),
    );
    assert.equal(new Set(creates.map((res) => res.body.data.contact)).size, 1);
    const contactId = creates[0]!.body.data.contact;
    assert.equal((await project.api.get(`/contacts?search=${encodeURIComponent(email)}`)).body.total, 1);

    // Starting subscribed, every change toggles: the events can only balance like this when each
    // writer saw the state the previous one left (no change emitted twice, none lost).
    const flips = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2 ? project.api.patch(`/contacts/${contactId}`, { subscribed: i % 4 === 1 }) : project.publicApi.post('/v1/track', { email, event: 'flip', subscribed: i % 4 === 0 }),
      ),
    );
    assert.deepEqual(
      flips.map((res) => res.status),
      Array(16).fill(200),
    );
    const names = await eventNames(project.api, contactId);
    const off = names.filter((n) => n === 'contact.unsubscribed').length;
    const on = names.filter((n) => n === 'contact.subscribed').length;
    const final = (await project.api.get(`/contacts/${contactId}`)).body.subscribed;
    assert.equal(off - on, final ? 0 : 1, `${off} unsubscribed / ${on} subscribed events, final ${final}`);
  });
});
