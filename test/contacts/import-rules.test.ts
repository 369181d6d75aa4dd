import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { IMPORT_BATCH_ROWS } from '../../src/contacts/contact-import.service.ts';
import { createProject } from '../kit/accounts.ts';
import { csvForm, importCsv, waitForJob } from '../kit/contact-jobs.ts';
import type { Client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/**
 * The CSV rules, row for row, on a file that spans two write batches: typed values, the subscribed
 * column, empty cells keeping stored values, reserved keys, duplicates within a batch and across
 * batches, bad rows with their record numbers, and the subscription events of existing contacts.
 * Every expectation is written from the rules (docs/decisions/contact-fields-bulk-import.md).
 */
describe('CSV import: the rules row for row', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function contactsByEmail(api: Client, emails: string[]) {
    const found = await api.post('/contacts/lookup', { emails });
    assert.equal(found.status, 200, found.text);
    const contacts = new Map<string, any>();
    for (const row of found.body.data) {
      if (!row.exists) continue;
      const contact = await api.get(`/contacts/${row.id}`);
      assert.equal(contact.status, 200, contact.text);
      contacts.set(contact.body.email, contact.body);
    }
    return contacts;
  }

  /** The ids of the events of that name, and the contact of each. */
  async function eventsNamed(api: Client, name: string): Promise<Map<string, string>> {
    const page = await api.get(`/events?name=${name}&limit=100`);
    assert.equal(page.status, 200, page.text);
    return new Map(page.body.data.map((event: any) => [event.id, event.contactId]));
  }

  async function newEvents(api: Client, name: string, before: Map<string, string>) {
    const now = await eventsNamed(api, name);
    return [...now]
      .filter(([id]) => !before.has(id))
      .map(([, contactId]) => contactId)
      .sort();
  }

  test('typed values, duplicates, bad rows and subscription changes across two batches', async () => {
    const { api } = await createProject(server.url);
    // Existing contacts: one unsubscribed with data, one subscribed, one snoozed.
    const kept = await api.post('/contacts', { email: 'kept@example.test', subscribed: false, data: { plan: 'free', city: 'Paris' } });
    const flip = await api.post('/contacts', { email: 'flip@example.test', data: { score: 1, plan: 'team' } });
    const snoozed = await api.post('/contacts', { email: 'snoozed@example.test', data: { city: 'Lyon' } });
    for (const res of [kept, flip, snoozed]) assert.equal(res.status, 201, res.text);
    const snooze = await api.patch(`/contacts/${snoozed.body.id}`, { snoozedUntil: new Date(Date.now() + 7 * 86_400_000).toISOString() });
    assert.equal(snooze.status, 200, snooze.text);
    assert.equal(snooze.body.subscribed, false);

    const header = 'Email,名前,age,score,vip,joined,zip,big,note,id,subscribed';
    const head = [
      // row 2: new, every kind of typed cell; a reserved key (id) is dropped
      'Ada@Example.test,エイダ,36,9.5,TRUE,2024-05-01,01234,9007199254740993,"Erste Zeile, mit Komma",abc,',
      // row 3: a bad address
      'not-an-email,Nobody,1,,,,,,,,',
      // row 4: existing, unsubscribes; empty cells keep what is stored
      'flip@example.test,,,,,,,,,,no',
      // row 5: existing and unsubscribed, the file says nothing about it: stays unsubscribed
      'kept@example.test,Кирилл,-7,-2.25,false,,75001,,"Строка один\nСтрока два",,',
      // row 6: one cell short
      'short@example.test,Short,1,2,true,,,,,',
      // row 7: Ada again in the same batch: the later cells win, the earlier ones stay
      'ada@example.test,,37,,,,,,Zweite Fassung,,',
      // row 8: snoozed, resubscribed by the file: the snooze ends
      'snoozed@example.test,,,,,,,,,,YES',
      // row 9: not a subscribed value
      'maybe@example.test,Maybe,,,,,,,,,perhaps',
      // row 10: no address
      ',Empty,,,,,,,,,1',
      // row 11: new and unsubscribed from the start: no event
      'quiet@example.test,静か,,,,,,,,,0',
    ];
    // Filler rows push the tail into a second write batch.
    const fillers = Array.from({ length: IMPORT_BATCH_ROWS }, (_, i) => `filler${i}@example.test,Füller ${i},${i % 90},,,,,,,,`);
    const tail = [
      // Ada a third time, in the next batch: she exists by then, so unsubscribing her is an event
      'ADA@example.test,,,,,,,,,,0',
      // and a filler of the first batch again, with a new value
      'filler7@example.test,,99,,,,,,,,',
    ];
    const unsubscribedBefore = await eventsNamed(api, 'contact.unsubscribed');
    const subscribedBefore = await eventsNamed(api, 'contact.subscribed');
    const csv = [header, ...head, ...fillers, ...tail].join('\n');
    const upload = await api.post('/contacts/import', undefined, { rawBody: csvForm(csv) });
    assert.equal(upload.status, 202, upload.text);
    // Two batches of thousands of rows: more time than the fixture's default on a busy machine.
    const job = await waitForJob(api, `/contacts/import/${upload.body.jobId}`, 120_000);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const total = head.length + fillers.length + tail.length;
    assert.deepEqual([job.total, job.processed, job.succeeded, job.failed], [total, total, total - 4, 4]);
    // Rows are records: the header is 1, and row 5's two-line cell is one record.
    assert.deepEqual(
      job.errors.map((e: any) => e.row),
      [3, 6, 9, 10],
    );
    assert.match(job.errors[0].message, /Invalid email address: not-an-email/);
    assert.match(job.errors[1].message, /10 columns; the header has 11/);
    assert.match(job.errors[2].message, /subscribed must be true, false, 1, 0, yes or no; got "perhaps"/);
    assert.match(job.errors[3].message, /email cell is empty/);

    const emails = [
      'ada@example.test',
      'flip@example.test',
      'kept@example.test',
      'snoozed@example.test',
      'quiet@example.test',
      'filler0@example.test',
      'filler7@example.test',
      `filler${IMPORT_BATCH_ROWS - 1}@example.test`,
    ];
    const contacts = await contactsByEmail(api, [...emails, 'not-an-email@example.test', 'short@example.test', 'maybe@example.test']);
    assert.deepEqual([...contacts.keys()].sort(), [...emails].sort(), 'bad rows write nothing');
    const expected: Record<string, { subscribed: boolean; data: Record<string, unknown> }> = {
      // rows 2 and 7 merged (later cells win), then unsubscribed by the second batch's row
      'ada@example.test': {
        subscribed: false,
        data: { 名前: 'エイダ', age: 37, score: 9.5, vip: true, joined: '2024-05-01', zip: '01234', big: '9007199254740993', note: 'Zweite Fassung' },
      },
      'flip@example.test': { subscribed: false, data: { score: 1, plan: 'team' } },
      'kept@example.test': {
        subscribed: false,
        data: { plan: 'free', city: 'Paris', 名前: 'Кирилл', age: -7, score: -2.25, vip: false, zip: 75001, note: 'Строка один\nСтрока два' },
      },
      'snoozed@example.test': { subscribed: true, data: { city: 'Lyon' } },
      'quiet@example.test': { subscribed: false, data: { 名前: '静か' } },
      'filler0@example.test': { subscribed: true, data: { 名前: 'Füller 0', age: 0 } },
      'filler7@example.test': { subscribed: true, data: { 名前: 'Füller 7', age: 99 } },
      [`filler${IMPORT_BATCH_ROWS - 1}@example.test`]: { subscribed: true, data: { 名前: `Füller ${IMPORT_BATCH_ROWS - 1}`, age: (IMPORT_BATCH_ROWS - 1) % 90 } },
    };
    for (const [email, want] of Object.entries(expected)) {
      const contact = contacts.get(email)!;
      assert.deepEqual({ subscribed: contact.subscribed, data: contact.data }, want, email);
    }
    assert.equal(contacts.get('snoozed@example.test').snoozedUntil, null, 'a subscribed cell ends the snooze');
    assert.equal(contacts.get('flip@example.test').id, flip.body.id, 'upserted by email');
    assert.equal((await api.get('/contacts?limit=1')).body.total, 3 + 2 + IMPORT_BATCH_ROWS);

    // A change of an existing contact's subscription is an event; a new contact's state is not.
    assert.deepEqual(await newEvents(api, 'contact.unsubscribed', unsubscribedBefore), [flip.body.id, contacts.get('ada@example.test').id].sort());
    assert.deepEqual(await newEvents(api, 'contact.subscribed', subscribedBefore), [snoozed.body.id]);
  });

  test('a quote left open at the end of the file is a bad last row; the rows before it are imported', async () => {
    const { api } = await createProject(server.url);
    const csv = 'email,note\nfirst@example.test,"quoted, fine"\nsecond@example.test,plain\nthird@example.test,"never closed\n';
    const job = await importCsv(api, csv);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual([job.total, job.processed, job.succeeded, job.failed], [3, 3, 2, 1]);
    assert.equal(job.errors[0].row, 4);
    assert.match(job.errors[0].message, /^Malformed CSV: /);
    const found = await api.post('/contacts/lookup', { emails: ['first@example.test', 'second@example.test', 'third@example.test'] });
    assert.deepEqual(
      found.body.data.map((row: any) => row.exists),
      [true, true, false],
    );
  });
});
