import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { importCsv } from '../kit/contact-jobs.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const N = 2500;
const address = (i: number) => `export${String(i).padStart(4, '0')}@fjord.example`;
const city = (i: number) => ['Oslo', 'Tromsø', 'Kyōto', 'São Paulo, SP'][i % 4]!;

/** Parses RFC 4180 CSV (quoted fields, doubled quotes, CRLF). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let value = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (value += '"'), i++;
      else if (ch === '"') quoted = false;
      else value += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') row.push(value), (value = '');
    else if (ch === '\n') row.push(value), rows.push(row), (row = []), (value = '');
    else if (ch !== '\r') value += ch;
  }
  return rows;
}

describe('GET /contacts/export: the contacts a condition selects, as streamed CSV (docs/campaigns.md)', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url);
    const lines = ['email,subscribed,city,seats', ...Array.from({ length: N }, (_, i) => `${address(i)},${i % 3 ? 'yes' : 'no'},"${city(i)}",${i}`)];
    const job = await importCsv(project.api, lines.join('\n'));
    assert.equal(job.succeeded, N, JSON.stringify(job.errors));
  });
  after(async () => {
    await server.close();
  });

  test('a data filter: exactly the matching contacts, every data key a column, values with commas quoted', async () => {
    const condition = {
      logic: 'OR',
      groups: [{ filters: [{ field: 'data.city', operator: 'equals', value: 'São Paulo, SP' }] }, { filters: [{ field: 'data.seats', operator: 'lessThan', value: 3 }] }],
    };
    const res = await project.api.get(`/contacts/export?condition=${encodeURIComponent(JSON.stringify(condition))}`);
    assert.equal(res.status, 200, res.text);
    assert.match(String(res.headers.get('content-type')), /^text\/csv/);
    assert.match(String(res.headers.get('content-disposition')), /attachment; filename="contacts.csv"/);
    const [header, ...rows] = parseCsv(res.text);
    assert.deepEqual(header, ['email', 'subscribed', 'createdAt', 'updatedAt', 'city', 'seats']);
    const expected = Array.from({ length: N }, (_, i) => i).filter((i) => city(i) === 'São Paulo, SP' || i < 3);
    assert.deepEqual(
      rows.map((r) => r[0]),
      expected.map(address),
      'every match once, by address, across several batches',
    );
    const row = rows.find((r) => r[0] === address(3))!;
    assert.deepEqual([row[1], row[4], row[5]], ['false', 'São Paulo, SP', '3']);
  });

  test('without a condition every contact; a bad condition is a 422 naming its filter', async () => {
    const all = await project.api.get('/contacts/export');
    assert.equal(parseCsv(all.text).length, N + 1);
    const bad = { logic: 'AND', groups: [{ filters: [{ field: 'data.city', operator: 'triggered' }] }] };
    const res = await project.api.get(`/contacts/export?condition=${encodeURIComponent(JSON.stringify(bad))}`);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.error.errors[0].field, 'condition.groups.0.filters.0.operator');
    assert.equal((await project.api.get('/contacts/export?condition=%7Bnot')).status, 422);
  });
});
