import assert from 'node:assert/strict';
import { get, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { checkedInSchema, schemaSource } from '../../scripts/api-schema.ts';
import { createAccount } from '../kit/accounts.ts';
import { ensureDashboardBuilt } from '../kit/browser.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('Dashboard serving, typed client and the session CSRF rule', () => {
  let server: TestServer;
  before(async () => {
    await ensureDashboardBuilt();
    server = await startTestServer();
  });
  after(async () => {
    await server?.close();
  });

  test('app pages load the dashboard; API routes and unknown API paths keep answering JSON', async () => {
    const home = await fetch(server.url, { headers: { accept: 'text/html' } });
    assert.equal(home.status, 200);
    assert.equal(home.headers.get('cache-control'), 'no-cache');
    const index = await home.text();
    assert.match(index, /<div id="root">/);
    for (const path of ['/login', '/reset-password?token=abc', '/p/00000000-0000-4000-8000-000000000000/contacts']) {
      const page = await fetch(server.url + path, { headers: { accept: 'text/html,application/xhtml+xml' } });
      assert.equal(page.status, 200, path);
      assert.equal(await page.text(), index, path);
    }
    const unknown = await fetch(`${server.url}/no/such/endpoint`, { headers: { accept: 'application/json' } });
    assert.equal(unknown.status, 404);
    assert.equal(((await unknown.json()) as any).error.code, 'ROUTE_NOT_FOUND');
    // An API route answers JSON even to a browser's Accept header.
    const me = await fetch(`${server.url}/users/@me`, { headers: { accept: 'text/html' } });
    assert.equal(me.status, 401);
    assert.equal(((await me.json()) as any).error.code, 'UNAUTHORIZED');
    const docs = await fetch(`${server.url}/docs`, { headers: { accept: 'text/html' } });
    assert.notEqual(await docs.text(), index);

    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(index)![1]!;
    const script = await fetch(server.url + asset);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.match(script.headers.get('cache-control') ?? '', /immutable/);
    const missing = await fetch(`${server.url}/assets/nope-123.js`);
    assert.equal(missing.status, 404);
  });

  test('hashed assets are sent precompressed (brotli, else gzip) with a one-year immutable cache; the bytes are the built file', async () => {
    const index = await (await fetch(server.url, { headers: { accept: 'text/html' } })).text();
    // The entry script, the vendor chunk it preloads and the stylesheet: the bulk of a first load.
    const paths = [
      /<script[^>]+src="(\/assets\/index-[^"]+\.js)"/.exec(index)?.[1],
      /<link rel="modulepreload"[^>]+href="(\/assets\/vendor-[^"]+\.js)"/.exec(index)?.[1],
      /<link rel="stylesheet"[^>]+href="(\/assets\/[^"]+\.css)"/.exec(index)?.[1],
    ];
    assert.ok(paths.every(Boolean), `entry script, vendor chunk and stylesheet in index.html: ${paths.join(', ')}`);
    for (const path of paths as string[]) {
      const plain = await rawGet(path, 'identity');
      assert.equal(plain.status, 200, path);
      assert.equal(plain.headers['content-encoding'], undefined, path);
      assert.match(String(plain.headers.vary), /accept-encoding/i, `${path}: shared caches keep one copy per encoding`);
      assert.match(String(plain.headers['cache-control']), /max-age=31536000/, path);
      assert.match(String(plain.headers['cache-control']), /immutable/, path);

      const br = await rawGet(path, 'gzip, deflate, br');
      assert.equal(br.headers['content-encoding'], 'br', path);
      assert.match(String(br.headers['cache-control']), /immutable/, path);
      assert.ok(br.body.length < plain.body.length / 2, `${path}: ${br.body.length} bytes with brotli, ${plain.body.length} without`);
      assert.ok(brotliDecompressSync(br.body).equals(plain.body), `${path}: brotli decodes to the file`);

      const gz = await rawGet(path, 'gzip');
      assert.equal(gz.headers['content-encoding'], 'gzip', path);
      assert.ok(gunzipSync(gz.body).equals(plain.body), `${path}: gzip decodes to the file`);
    }
  });

  /** A GET with exactly this Accept-Encoding, the body as sent (fetch would decode it). */
  function rawGet(path: string, encoding: string): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
    return new Promise((resolve, reject) => {
      get(server.url + path, { headers: { 'accept-encoding': encoding } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      }).on('error', reject);
    });
  }

  test('a session request that changes state needs X-Requested-With or X-Project-Id (no cross-site form can send one)', async () => {
    const account = await createAccount(server.url);
    const forged = await fetch(`${server.url}/users/@me/projects`, {
      method: 'POST',
      headers: { cookie: account.cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Forged' }),
    });
    assert.equal(forged.status, 403);
    assert.equal(((await forged.json()) as any).error.code, 'FORBIDDEN');
    const listed = await fetch(`${server.url}/users/@me/projects`, { headers: { cookie: account.cookie } });
    assert.deepEqual(((await listed.json()) as any).data, [], 'the forged request created nothing; a GET needs no header');

    const real = await fetch(`${server.url}/users/@me/projects`, {
      method: 'POST',
      headers: { cookie: account.cookie, 'content-type': 'application/json', 'x-requested-with': 'fetch' },
      body: JSON.stringify({ name: 'Real' }),
    });
    assert.equal(real.status, 201);
    // Without a session the answer stays 401, whatever the headers.
    const anonymous = await fetch(`${server.url}/users/@me/projects`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    assert.equal(anonymous.status, 401);
  });

  test('packages/client/src/schema.ts, the types the dashboard and the client share, is what `npm run gen:api` generates from /openapi.json today', async () => {
    const spec = (await (await fetch(`${server.url}/openapi.json`)).json()) as object;
    const generated = await schemaSource(spec);
    assert.ok(generated === checkedInSchema(), 'the API changed: run `npm run gen:api` and fix the dashboard where the typecheck then fails');
  });
});
