import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { insertJob } from '../../src/contacts/contact-bulk.queries.ts';
import { insertImportFile } from '../../src/contacts/contact-import.queries.ts';
import { IMPORT_BATCH_ROWS, runImportJob } from '../../src/contacts/contact-import.service.ts';
import { createProject, uniqueEmail } from '../kit/accounts.ts';
import { csvForm, importCsv, waitForJob } from '../kit/contact-jobs.ts';
import type { Client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('CSV contact import', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function contactByEmail(api: Client, email: string) {
    const found = await api.post('/contacts/lookup', { emails: [email] });
    assert.equal(found.status, 200, found.text);
    if (!found.body.data[0].exists) return undefined;
    return (await api.get(`/contacts/${found.body.data[0].id}`)).body;
  }

  async function storedFiles(jobId: string) {
    const rows = await server.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM contact_import_files WHERE job_id = $1', [jobId]);
    return rows[0]!.n;
  }

  test('a good CSV creates and updates contacts with typed values and the subscribed column', async () => {
    const { api } = await createProject(server.url);
    const existing = await api.post('/contacts', { email: 'old@example.test', data: { plan: 'pro', city: 'Paris' } });
    assert.equal(existing.status, 201);
    const kept = await api.post('/contacts', { email: 'kept@example.test', subscribed: false });
    assert.equal(kept.status, 201);

    const csv = [
      'EMAIL,First Name,age,score,vip,joined,zip,city,Subscribed',
      'Ada@Example.test,Ada,36,9.5,true,2024-05-01,01234,London,',
      'bob@example.test,"Bob, Jr.",41,-2.25,FALSE,2024-05-01T10:00:00Z,75001,,no',
      'old@example.test,,,,,,,,0',
      'kept@example.test,Kim,,,,,,,',
    ].join('\r\n');
    const job = await importCsv(api, csv);
    assert.equal(job.type, 'import');
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.deepEqual([job.total, job.processed, job.succeeded, job.failed], [4, 4, 4, 0]);
    assert.deepEqual(job.errors, []);
    assert.equal(job.error, null);
    assert.ok(job.completedAt);

    const ada = await contactByEmail(api, 'ada@example.test');
    assert.equal(ada.subscribed, true, 'new contacts are subscribed unless the column says otherwise');
    assert.deepEqual(ada.data, { 'First Name': 'Ada', age: 36, score: 9.5, vip: true, joined: '2024-05-01', zip: '01234', city: 'London' });
    const bob = await contactByEmail(api, 'bob@example.test');
    assert.equal(bob.subscribed, false);
    assert.deepEqual(bob.data, { 'First Name': 'Bob, Jr.', age: 41, score: -2.25, vip: false, joined: '2024-05-01T10:00:00Z', zip: 75001 });
    const old = await contactByEmail(api, 'old@example.test');
    assert.equal(old.id, existing.body.id, 'upserted by email');
    assert.equal(old.subscribed, false);
    assert.deepEqual(old.data, { plan: 'pro', city: 'Paris' }, 'empty cells keep the stored values');
    const keptNow = await contactByEmail(api, 'kept@example.test');
    assert.equal(keptNow.subscribed, false, 'an empty subscribed cell keeps the stored state');
    assert.deepEqual(keptNow.data, { 'First Name': 'Kim' });

    const oldEvents = await api.get(`/events?contactId=${old.id}`);
    assert.deepEqual(
      oldEvents.body.data.map((e: any) => e.name),
      ['contact.unsubscribed'],
      'a change of subscribed emits the event',
    );
    const newEvents = await api.get(`/events?contactId=${bob.id}`);
    assert.deepEqual(newEvents.body.data, [], 'creating a contact emits no subscription event');
    assert.equal(await storedFiles(job.id), 0, 'the stored upload is deleted when the job ends');
  });

  test('bad rows are reported with their row number and the others are imported', async () => {
    const { api } = await createProject(server.url);
    const csv = [
      'email,name,subscribed',
      'one@example.test,One,yes',
      'not-an-email,Two,yes',
      'three@example.test,Three',
      'four@example.test,Four,maybe',
      ',Five,1',
      '',
      'six@example.test,"Six",1',
      'seven@example.test,Seven,no,extra',
    ].join('\n');
    const job = await importCsv(api, csv);
    assert.equal(job.status, 'completed');
    assert.deepEqual([job.total, job.processed, job.succeeded, job.failed], [7, 7, 2, 5]);
    assert.deepEqual(
      job.errors.map((e: any) => e.row),
      [3, 4, 5, 6, 8],
      'the header is row 1; blank lines are skipped and not counted',
    );
    assert.match(job.errors[0].message, /Invalid email/);
    assert.match(job.errors[1].message, /2 columns; the header has 3/);
    assert.match(job.errors[2].message, /subscribed must be/);
    assert.match(job.errors[3].message, /email cell is empty/);
    assert.match(job.errors[4].message, /4 columns/);
    assert.ok(await contactByEmail(api, 'one@example.test'));
    assert.ok(await contactByEmail(api, 'six@example.test'));
    assert.equal(await contactByEmail(api, 'three@example.test'), undefined);
  });

  test('a CSV without an email column fails the job with a clear error', async () => {
    const { api } = await createProject(server.url);
    const job = await importCsv(api, 'name,mail\nAda,ada@example.test\n');
    assert.equal(job.status, 'failed');
    assert.match(job.error, /no email column/);
    assert.deepEqual(job.errors, [{ row: 1, message: job.error }]);
    assert.equal(job.succeeded, 0);
    assert.equal(await storedFiles(job.id), 0);
    const empty = await importCsv(api, '');
    assert.equal(empty.status, 'failed');
    assert.match(empty.error, /empty/);
  });

  test('more than one batch: every row lands once, duplicates upsert, progress adds up', async () => {
    const { api } = await createProject(server.url);
    const rows = ['email,n'];
    const count = IMPORT_BATCH_ROWS + 200;
    const distinct = IMPORT_BATCH_ROWS + 100;
    for (let i = 0; i < count; i++) rows.push(`bulk${i % distinct}@example.test,${i}`);
    const job = await importCsv(api, rows.join('\n'));
    assert.equal(job.status, 'completed');
    assert.deepEqual([job.total, job.processed, job.succeeded, job.failed], [count, count, count, 0]);
    const list = await api.get('/contacts?limit=1');
    assert.equal(list.body.total, distinct);
    const repeated = await contactByEmail(api, 'bulk5@example.test');
    assert.equal(repeated.data.n, distinct + 5, 'the later row wins');
  });

  test('a file over 5 MB is a 413; a missing file is a 400', async () => {
    const { api } = await createProject(server.url);
    const line = `${uniqueEmail('big')},${'x'.repeat(90)}\n`;
    const big = Buffer.from(`email,filler\n${line.repeat(Math.ceil((6 * 1024 * 1024) / line.length))}`);
    const tooLarge = await api.post('/contacts/import', undefined, { rawBody: csvForm(big) });
    assert.equal(tooLarge.status, 413, tooLarge.text);
    assert.equal(tooLarge.body.success, false);
    assert.equal(tooLarge.body.error.code, 'PAYLOAD_TOO_LARGE');

    const otherField = await api.post('/contacts/import', undefined, { rawBody: csvForm('email\na@example.test\n', 'csv') });
    assert.equal(otherField.status, 400, otherField.text);
    assert.match(otherField.body.error.message, /field `file`/);
    const noFile = new FormData();
    noFile.append('note', 'hello');
    const none = await api.post('/contacts/import', undefined, { rawBody: noFile });
    assert.equal(none.status, 400, none.text);
    assert.equal(none.body.error.code, 'BAD_REQUEST');
    const json = await api.post('/contacts/import', { file: 'email\n' });
    assert.equal(json.status, 400);
    const nothing = await api.post('/contacts/import');
    assert.equal(nothing.status, 400);
  });

  test("GET /contacts/import/{jobId}: another project's job is a 404", async () => {
    const owner = await createProject(server.url);
    const stranger = await createProject(server.url);
    const res = await owner.api.post('/contacts/import', undefined, { rawBody: csvForm('email\nx@example.test\n') });
    assert.equal(res.status, 202);
    assert.equal((await stranger.api.get(`/contacts/import/${res.body.jobId}`)).status, 404);
    const job = await waitForJob(owner.dashboard, `/contacts/import/${res.body.jobId}`);
    assert.equal(job.succeeded, 1);
    assert.equal((await stranger.api.get(`/contacts/import/${res.body.jobId}`)).status, 404);
    assert.equal((await owner.api.get(`/contacts/bulk/${res.body.jobId}`)).status, 404, 'an import is not a bulk job');
  });
  test('a retried import resumes after the last committed batch: no row lost, none written twice', async () => {
    const { api, id: projectId } = await createProject(server.url);
    const rows = ['email,n'];
    for (let i = 0; i < 1200; i++) rows.push(`resume${i}@example.test,${i}`);
    // The state a worker leaves when it dies after committing its first 500 rows: the job
    // row, its stored file and its progress (made here without a queued job, so the test plays
    // the retrying worker; the 500 rows themselves are left out, so a re-written row would count).
    const db = server.deps.db;
    const jobId = await insertJob(db, projectId, 'import', null, 0);
    await insertImportFile(db, projectId, jobId, Buffer.from(rows.join('\n')));
    await db.query(`UPDATE contact_jobs SET status = 'running', processed = 500, succeeded = 500 WHERE id = $1`, [jobId]);

    await runImportJob(server.deps, { projectId, jobId });
    const job = (await api.get(`/contacts/import/${jobId}`)).body;
    assert.equal(job.status, 'completed');
    assert.deepEqual([job.total, job.processed, job.succeeded, job.failed], [1200, 1200, 1200, 0]);
    assert.equal((await api.get('/contacts?limit=1')).body.total, 700, 'only the rows after the first 500 were written');
    const lookup = await api.post('/contacts/lookup', { emails: ['resume499@example.test', 'resume500@example.test'] });
    assert.deepEqual(
      lookup.body.data.map((r: any) => r.exists),
      [false, true],
    );
    assert.equal(await storedFiles(jobId), 0);

    await runImportJob(server.deps, { projectId, jobId });
    assert.deepEqual((await api.get(`/contacts/import/${jobId}`)).body, job, 'a late duplicate delivery of the job is a no-op');
  });
});
