import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../kit/accounts.ts';
import { importCsv } from '../kit/contact-jobs.ts';
import type { Client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/**
 * One realistic file, asserted row for row: every contact of the project afterwards (data and
 * subscribed flag) and every bad row (record number and message), from the CSV rules
 * (docs/decisions/contacts-and-events.md, docs/decisions/contact-fields-bulk-import.md).
 */
describe('CSV import: a realistic file, row for row', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  /** Every contact of the project, by email: { subscribed, data }. */
  async function allContacts(api: Client) {
    const contacts = new Map<string, { id: string; subscribed: boolean; data: Record<string, unknown> }>();
    let cursor: string | null = null;
    do {
      const page: any = await api.get(`/contacts?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(page.status, 200, page.text);
      for (const contact of page.body.data) contacts.set(contact.email, { id: contact.id, subscribed: contact.subscribed, data: contact.data });
      cursor = page.body.hasMore ? page.body.cursor : null;
    } while (cursor);
    return contacts;
  }

  async function eventContacts(api: Client, name: string) {
    const page = await api.get(`/events?name=${name}&limit=100`);
    assert.equal(page.status, 200, page.text);
    return page.body.data.map((event: any) => event.contactId).sort();
  }

  test('typed cells, duplicates in the file and in the project, bad rows, non-Latin text and a long line', async () => {
    const { api } = await createProject(server.url);
    const member = await api.post('/contacts', { email: 'existing.member@example.test', subscribed: false, data: { plan: 'team', city: 'Paris', age: 20 } });
    const resub = await api.post('/contacts', { email: 'resub@example.test', subscribed: false, data: { plan: 'free' } });
    const untouched = await api.post('/contacts', { email: 'untouched@example.test', data: { plan: 'pro' } });
    for (const res of [member, resub, untouched]) assert.equal(res.status, 201, res.text);

    const longBio = Array.from({ length: 2500 }, (_, i) => `mot${i}`).join(' ');
    assert.ok(longBio.length > 15_000);
    const lines = [
      'email,first_name,last_name,plan,age,score,vip,signed_up,zip,bio,subscribed',
      /* 2 */ 'ada.lovelace@example.test,Ada,Lovelace,pro,36,9.5,true,2024-05-01,01234,"Analyst, engineer",yes',
      /* 3 */ '山田.太郎@example.test,太郎,山田,free,41,,,,,,',
      /* 4 */ 'taro.yamada@example.jp,太郎,山田,free,41,-2.25,FALSE,2024-05-01T10:00:00Z,100-0001,東京都千代田区,no',
      /* 5 */ 'jean.dupont@,Jean,Dupont,pro,,,,,,,',
      /* 6 (two lines, one record) */ 'Existing.Member@Example.test,Ирина,Петрова,,29,,,,,"Line one\nLine two",',
      /* 7 */ 'no-at-sign.example.test,No,At,,,,,,,,',
      /* 8 */ 'sofia@example.gr,Σοφία,Παπαδοπούλου,pro,007,3.,True,2023-12-31,,"She said ""hi""",1',
      /* 9 */ 'short@example.test,Short,Row,free,1',
      /* 10: Ada again, another case: later cells win, earlier ones stay */ 'ADA.LOVELACE@example.test,,,team,37,,,,,,',
      /* 11 */ 'maybe@example.test,May,Be,,,,,,,,perhaps',
      /* 12 */ ',Nobody,Here,,,,,,,,1',
      /* 13 */ `omar@example.eg,عمر,الفاروق,free,12345678901234567890,1e5,yes,,,${longBio},0`,
      /* 14: existing and unsubscribed, subscribed by the file */ 'resub@example.test,,,,,,,,,,yes',
      /* 15: tab, backslashes and \N travel as text */ `emoji@example.test,Zoë 🚀,O'Brien,pro,-0,0.50,false,2024-02-29,,"tab\there, back\\slash \\N",`,
      /* 16 */ ' padded@example.test , Padded , Name ,free,,,,,,,',
      /* 17: Taro again with nothing to say */ 'taro.yamada@example.jp,,,,,,,,,,',
      /* 18 */ 'two@@example.test,,,,,,,,,,',
      /* 19 */ 'late@example.test,Late,Comer,free,50,,,,,,false',
    ];
    const job = await importCsv(api, `${lines.join('\r\n')}\r\n`);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual([job.total, job.processed, job.succeeded, job.failed], [18, 18, 11, 7]);
    assert.deepEqual(job.errors, [
      { row: 3, message: 'Invalid email address: 山田.太郎@example.test' },
      { row: 5, message: 'Invalid email address: jean.dupont@' },
      { row: 7, message: 'Invalid email address: no-at-sign.example.test' },
      { row: 9, message: 'The row has 5 columns; the header has 11.' },
      { row: 11, message: 'subscribed must be true, false, 1, 0, yes or no; got "perhaps".' },
      { row: 12, message: 'The email cell is empty.' },
      { row: 18, message: 'Invalid email address: two@@example.test' },
    ]);

    const contacts = await allContacts(api);
    const expected: Record<string, { subscribed: boolean; data: Record<string, unknown> }> = {
      'ada.lovelace@example.test': {
        subscribed: true,
        data: { first_name: 'Ada', last_name: 'Lovelace', plan: 'team', age: 37, score: 9.5, vip: true, signed_up: '2024-05-01', zip: '01234', bio: 'Analyst, engineer' },
      },
      'taro.yamada@example.jp': {
        subscribed: false,
        data: { first_name: '太郎', last_name: '山田', plan: 'free', age: 41, score: -2.25, vip: false, signed_up: '2024-05-01T10:00:00Z', zip: '100-0001', bio: '東京都千代田区' },
      },
      'existing.member@example.test': {
        subscribed: false,
        data: { plan: 'team', city: 'Paris', age: 29, first_name: 'Ирина', last_name: 'Петрова', bio: 'Line one\nLine two' },
      },
      'sofia@example.gr': {
        subscribed: true,
        data: { first_name: 'Σοφία', last_name: 'Παπαδοπούλου', plan: 'pro', age: '007', score: '3.', vip: true, signed_up: '2023-12-31', bio: 'She said "hi"' },
      },
      'omar@example.eg': {
        subscribed: false,
        data: { first_name: 'عمر', last_name: 'الفاروق', plan: 'free', age: '12345678901234567890', score: '1e5', vip: 'yes', bio: longBio },
      },
      'resub@example.test': { subscribed: true, data: { plan: 'free' } },
      'emoji@example.test': {
        subscribed: true,
        data: { first_name: 'Zoë 🚀', last_name: "O'Brien", plan: 'pro', age: 0, score: 0.5, vip: false, signed_up: '2024-02-29', bio: 'tab\there, back\\slash \\N' },
      },
      'padded@example.test': { subscribed: true, data: { first_name: 'Padded', last_name: 'Name', plan: 'free' } },
      'late@example.test': { subscribed: false, data: { first_name: 'Late', last_name: 'Comer', plan: 'free', age: 50 } },
      'untouched@example.test': { subscribed: true, data: { plan: 'pro' } },
    };
    assert.deepEqual([...contacts.keys()].sort(), Object.keys(expected).sort(), 'bad rows write nothing; duplicates write one contact');
    for (const [email, want] of Object.entries(expected)) {
      const contact = contacts.get(email)!;
      assert.deepEqual({ subscribed: contact.subscribed, data: contact.data }, want, email);
    }
    assert.equal(contacts.get('existing.member@example.test')!.id, member.body.id, 'upserted by email');
    assert.equal(contacts.get('resub@example.test')!.id, resub.body.id);

    // Only an existing contact whose subscription the file changed has an event.
    assert.deepEqual(await eventContacts(api, 'contact.subscribed'), [resub.body.id]);
    assert.deepEqual(await eventContacts(api, 'contact.unsubscribed'), []);

    // The same file again changes nothing but counts the same.
    const again = await importCsv(api, `${lines.join('\r\n')}\r\n`);
    assert.deepEqual([again.status, again.total, again.processed, again.succeeded, again.failed], ['completed', 18, 18, 11, 7]);
    assert.deepEqual(again.errors, job.errors);
    const after = await allContacts(api);
    for (const [email, want] of Object.entries(expected)) assert.deepEqual({ subscribed: after.get(email)!.subscribed, data: after.get(email)!.data }, want, `${email} (again)`);
    assert.deepEqual(await eventContacts(api, 'contact.subscribed'), [resub.body.id]);
  });
});
