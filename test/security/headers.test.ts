import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createAccount, createProject, type TestProject } from '../kit/accounts.ts';
import { launchBrowser } from '../kit/browser.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/** A plain page on another origin (another port): the customer's web site. */
async function startForeignSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Shop</title><h1>Boutique Müller</h1></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://localhost:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const PREFLIGHT = { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' };

describe('CORS: /v1/track from any origin, every other route refused to cross-origin browsers', () => {
  let server: TestServer;
  let project: TestProject;
  let site: Awaited<ReturnType<typeof startForeignSite>>;
  let browser: Browser;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url);
    site = await startForeignSite();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    await server?.close();
  });

  test('a page on another origin tracks an event with the public key in Chromium; the secret-key routes stay closed to it', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await page.goto(site.url);
      const api = server.url;
      const tracked = await page.evaluate(
        async ({ api, key }) => {
          const response = await fetch(`${api}/v1/track`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ email: 'kundin@example.com', event: 'warenkorb-angesehen', data: { artikel: 'Teekanne „Ostfriesland“', preis: 39.9 } }),
          });
          return { status: response.status, body: (await response.json()) as { success: boolean }, remaining: response.headers.get('ratelimit-remaining') };
        },
        { api, key: project.publicKey },
      );
      assert.equal(tracked.status, 200, JSON.stringify(tracked.body));
      assert.equal(tracked.body.success, true);
      assert.ok(Number(tracked.remaining) > 0, 'the rate-limit headers are exposed to the page');

      for (const [path, key, init] of [
        ['/templates', project.secretKey, { method: 'GET' }],
        ['/v1/send', project.secretKey, { method: 'POST', body: '{}' }],
        ['/v1/track', 'none', { method: 'PUT', body: '{}' }],
      ] as const) {
        const outcome = await page.evaluate(
          async ({ url, key, init }) => {
            try {
              const response = await fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
              return `answered ${response.status}`;
            } catch (error) {
              return `refused: ${(error as Error).name}`;
            }
          },
          { url: `${api}${path}`, key, init },
        );
        assert.equal(outcome, 'refused: TypeError', `${init.method} ${path}`);
      }
    } finally {
      await context.close();
    }
    const events = await project.api.get('/events?limit=5');
    assert.ok(
      events.body.data.some((e: { name: string }) => e.name === 'warenkorb-angesehen'),
      events.text,
    );
  });

  test('preflights: /v1/track allows any origin without credentials; other routes send no Access-Control-Allow-*', async () => {
    const track = await fetch(`${server.url}/v1/track`, { method: 'OPTIONS', headers: { origin: 'https://shop.example', ...PREFLIGHT } });
    assert.equal(track.status, 204);
    assert.equal(track.headers.get('access-control-allow-origin'), '*');
    assert.equal(track.headers.get('access-control-allow-credentials'), null);
    assert.match(track.headers.get('access-control-allow-headers') ?? '', /authorization/);
    for (const path of ['/v1/send', '/templates', '/contacts', '/auth/login', '/users/@me/projects']) {
      const preflight = await fetch(server.url + path, { method: 'OPTIONS', headers: { origin: 'https://shop.example', ...PREFLIGHT } });
      const allow = [...preflight.headers.keys()].filter((name) => name.startsWith('access-control-'));
      assert.deepEqual(allow, [], `OPTIONS ${path}`);
      const actual = await client(server.url, { key: project.secretKey, headers: { origin: 'https://shop.example' } }).get(path);
      assert.equal(actual.headers.get('access-control-allow-origin'), null, `GET ${path}`);
    }
  });
});

describe('security headers', () => {
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    server = await startTestServer();
    project = await createProject(server.url);
  });
  after(() => server.close());

  test('nosniff and no-store on JSON answers, errors included; no HSTS on an http PUBLIC_URL', async () => {
    for (const response of [await project.api.get('/templates'), await project.api.get('/nope'), await client(server.url).get('/templates')]) {
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(response.headers.get('cache-control'), 'no-store');
      assert.equal(response.headers.get('strict-transport-security'), null);
    }
  });

  test('answers that carry keys or a session are not stored by any cache', async () => {
    const owner = await createAccount(server.url);
    const created = await client(server.url, { cookie: owner.cookie }).post('/users/@me/projects', { name: 'Clés' });
    assert.equal(created.status, 201);
    assert.match(created.body.secretKey, /^sk_/);
    assert.equal(created.headers.get('cache-control'), 'no-store');
    const rotated = await client(server.url, { cookie: owner.cookie }).post(`/users/@me/projects/${created.body.id}/regenerate-keys`, {});
    assert.equal(rotated.status, 200, rotated.text);
    assert.equal(rotated.headers.get('cache-control'), 'no-store');
    const login = await client(server.url).post('/auth/login', { email: owner.email, password: owner.password });
    assert.equal(login.status, 200);
    assert.equal(login.headers.get('cache-control'), 'no-store');
  });

  test('/docs has a CSP with frame-ancestors, X-Frame-Options and nosniff, and Swagger UI still renders under it in Chromium', async () => {
    const docs = await fetch(`${server.url}/docs/`);
    const csp = docs.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.equal(docs.headers.get('x-frame-options'), 'DENY');
    assert.equal(docs.headers.get('x-content-type-options'), 'nosniff');

    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
      });
      await page.goto(`${server.url}/docs/`);
      await page.locator('.swagger-ui .info .title').filter({ hasText: 'Mailroom API' }).waitFor({ timeout: 30_000 });
      await page.locator('.swagger-ui .opblock-tag').first().waitFor();
      assert.ok((await page.locator('.swagger-ui .opblock-tag').count()) > 0);
      assert.deepEqual(refused, []);
    } finally {
      await browser.close();
    }
  });

  test('HSTS when PUBLIC_URL is https; the open pixel may be embedded by other sites', async () => {
    const secure = await startTestServer({ PUBLIC_URL: 'https://mail.example.test' });
    try {
      const response = await fetch(`${secure.url}/health`);
      assert.match(response.headers.get('strict-transport-security') ?? '', /max-age=31536000/);
      assert.match(response.headers.get('content-security-policy') ?? '', /upgrade-insecure-requests/);
      const pixel = await fetch(`${secure.url}/t/o/not-a-token`);
      assert.equal(pixel.status, 200);
      assert.equal(pixel.headers.get('cross-origin-resource-policy'), 'cross-origin');
      assert.equal(pixel.headers.get('x-content-type-options'), 'nosniff');
    } finally {
      await secure.close();
    }
  });
});
