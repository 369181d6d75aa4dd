import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

// A real 1×1 PNG, and a JPEG / GIF / WebP made of their magic bytes and random payload (only the
// bytes' beginning decides the type; random payload proves the download is byte-identical).
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(4000)]);
const GIF = Buffer.concat([Buffer.from('GIF89a'), randomBytes(100)]);
const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x10, 0, 0, 0]), Buffer.from('WEBPVP8 '), randomBytes(100)]);

function imageForm(content: Buffer, filename: string, type = 'application/octet-stream', field = 'file'): FormData {
  const form = new FormData();
  form.append(field, new Blob([content], { type }), filename);
  return form;
}

describe('POST /uploads/image and GET /uploads/<id>.<ext>', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ PUBLIC_URL: 'https://mail.example.test/' });
  });
  after(() => server.close());

  async function download(url: string) {
    assert.ok(url.startsWith('https://mail.example.test/uploads/'), url);
    const response = await fetch(server.url + new URL(url).pathname);
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  test('PNG, JPEG, GIF and WebP are stored and served byte-identical, publicly, with their type', async () => {
    const { api } = await createProject(server.url);
    const cases = [
      { content: PNG, name: 'logo.png', ext: 'png', type: 'image/png' },
      { content: JPEG, name: 'photo.jpeg', ext: 'jpg', type: 'image/jpeg' },
      { content: GIF, name: 'anim.gif', ext: 'gif', type: 'image/gif' },
      { content: WEBP, name: 'pic.webp', ext: 'webp', type: 'image/webp' },
    ];
    for (const c of cases) {
      const res = await api.post('/uploads/image', undefined, { rawBody: imageForm(c.content, c.name, c.type) });
      assert.equal(res.status, 201, res.text);
      assert.match(res.body.url, new RegExp(`^https://mail\\.example\\.test/uploads/[0-9a-f-]{36}\\.${c.ext}$`));
      assert.equal(res.body.contentType, c.type);
      assert.equal(res.body.size, c.content.length);
      const got = await download(res.body.url);
      assert.equal(got.status, 200);
      assert.ok(got.bytes.equals(c.content), `${c.name} is served byte-identical`);
      assert.equal(got.headers.get('content-type'), c.type);
      assert.equal(got.headers.get('x-content-type-options'), 'nosniff');
      assert.match(got.headers.get('cache-control') ?? '', /max-age=31536000/);
    }
  });

  test('the content decides: a PNG named .txt is accepted as PNG; text named .png and SVG are refused', async () => {
    const project = await createProject(server.url);
    const { api, dashboard } = project;
    const renamed = await api.post('/uploads/image', undefined, { rawBody: imageForm(PNG, 'notes.txt', 'text/plain') });
    assert.equal(renamed.status, 201, renamed.text);
    assert.match(renamed.body.url, /\.png$/);
    assert.equal((await download(renamed.body.url)).headers.get('content-type'), 'image/png');

    const text = await api.post('/uploads/image', undefined, { rawBody: imageForm(Buffer.from('hello, not an image'), 'logo.png', 'image/png') });
    assert.equal(text.status, 415, text.text);
    assert.equal(text.body.success, false);
    assert.equal(text.body.error.code, 'UNSUPPORTED_IMAGE_TYPE');

    const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const refused = await dashboard.post('/uploads/image', undefined, { rawBody: imageForm(svg, 'logo.svg', 'image/svg+xml') });
    assert.equal(refused.status, 415, refused.text);
    assert.equal(refused.body.error.code, 'UNSUPPORTED_IMAGE_TYPE');
    assert.match(refused.body.error.message, /SVG/);

    const stored = await server.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM uploads WHERE project_id = $1', [project.id]);
    assert.equal(stored[0]!.n, 1, 'refused files are not stored');
  });

  test('over 5 MB → 413; a missing file, another field, an empty file or JSON → 400', async () => {
    const { api } = await createProject(server.url);
    const big = Buffer.concat([PNG.subarray(0, 8), randomBytes(5 * 1024 * 1024 + 1)]);
    const tooBig = await api.post('/uploads/image', undefined, { rawBody: imageForm(big, 'big.png', 'image/png') });
    assert.equal(tooBig.status, 413, tooBig.text);
    assert.equal(tooBig.body.error.code, 'PAYLOAD_TOO_LARGE');

    const justUnder = Buffer.concat([PNG.subarray(0, 8), randomBytes(5 * 1024 * 1024 - 8)]);
    const fits = await api.post('/uploads/image', undefined, { rawBody: imageForm(justUnder, 'max.png', 'image/png') });
    assert.equal(fits.status, 201, 'exactly 5 MB is accepted');
    assert.ok((await download(fits.body.url)).bytes.equals(justUnder));

    const noFile = new FormData();
    noFile.append('note', 'hello');
    const none = await api.post('/uploads/image', undefined, { rawBody: noFile });
    assert.equal(none.status, 400, none.text);
    assert.equal(none.body.error.code, 'BAD_REQUEST');
    const otherField = await api.post('/uploads/image', undefined, { rawBody: imageForm(PNG, 'a.png', 'image/png', 'image') });
    assert.equal(otherField.status, 400);
    assert.match(otherField.body.error.message, /field `file`/);
    const empty = await api.post('/uploads/image', undefined, { rawBody: imageForm(Buffer.alloc(0), 'a.png') });
    assert.equal(empty.status, 400);
    assert.equal((await api.post('/uploads/image', { file: PNG.toString('base64') })).status, 400);
    assert.equal((await api.post('/uploads/image')).status, 400);
  });

  test('keys: the public key, no key or a session without X-Project-Id → 401; the session with it works', async () => {
    const project = await createProject(server.url);
    const form = () => imageForm(PNG, 'a.png', 'image/png');
    const pub = await project.publicApi.post('/uploads/image', undefined, { rawBody: form() });
    assert.equal(pub.status, 401);
    assert.equal(pub.body.error.code, 'INVALID_API_KEY');
    assert.equal((await client(server.url).post('/uploads/image', undefined, { rawBody: form() })).status, 401);
    assert.equal((await project.dashboard.post('/uploads/image', undefined, { rawBody: form() })).status, 201);
  });

  test('GET: unknown id, wrong extension or a malformed name → 404', async () => {
    const { api } = await createProject(server.url);
    const res = await api.post('/uploads/image', undefined, { rawBody: imageForm(PNG, 'a.png') });
    const path = new URL(res.body.url).pathname;
    const http = client(server.url);
    assert.equal((await http.get(path)).status, 200);
    assert.equal((await http.get(path.replace(/\.png$/, '.jpg'))).status, 404);
    assert.equal((await http.get('/uploads/00000000-0000-4000-8000-000000000000.png')).status, 404);
    const malformed = await http.get('/uploads/..%2Fetc%2Fpasswd');
    assert.equal(malformed.status, 404);
    assert.equal(malformed.body.error.code, 'NOT_FOUND');
  });

  test('the bytes live in the database: another server process on the same PostgreSQL serves them', async () => {
    const { api } = await createProject(server.url);
    const res = await api.post('/uploads/image', undefined, { rawBody: imageForm(JPEG, 'p.jpg') });
    assert.equal(res.status, 201);
    const id = new URL(res.body.url).pathname.slice('/uploads/'.length, -'.jpg'.length);
    const rows = await server.deps.db.query<{ content: Uint8Array }>('SELECT content FROM uploads WHERE id = $1', [id]);
    assert.ok(Buffer.from(rows[0]!.content).equals(JPEG), 'stored in the database, not under DATA_DIR');
    if (!TEST_DATABASE_URL) return; // PGlite: one process owns the database
    const other = await startTestServer({ DATABASE_URL: server.env.DATABASE_URL!, PUBLIC_URL: 'https://mail.example.test' });
    try {
      const response = await fetch(other.url + new URL(res.body.url).pathname);
      assert.equal(response.status, 200);
      assert.ok(Buffer.from(await response.arrayBuffer()).equals(JPEG));
    } finally {
      await other.close();
    }
  });
});
