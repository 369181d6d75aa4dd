import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('password policy: the most common and easily guessed passwords are refused', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('12345678, password, eight spaces, P@ssw0rd and a keyboard walk: 422 on the password field; a passphrase is accepted', async () => {
    for (const password of ['12345678', 'password', '        ', 'P@ssw0rd', 'qwertyuiop', 'iloveyou1']) {
      const response = await client(server.url).post('/auth/signup', { email: uniqueEmail('weak'), password });
      assert.equal(response.status, 422, `${JSON.stringify(password)}: ${response.text}`);
      const error = response.body.error.errors.find((e: { field: string }) => e.field === 'password');
      assert.match(error?.message ?? '', /too easy to guess/, JSON.stringify(password));
      assert.equal(error.code, 'weak_password');
    }
    const strong = await client(server.url).post('/auth/signup', { email: uniqueEmail('strong'), password: 'Kaffeemühle am Fenster' });
    assert.equal(strong.status, 201, strong.text);
  });
});

describe('log-in throttling: a growing delay per email and per address, never a lockout', () => {
  let server: TestServer;
  let other: TestServer | undefined;
  before(async () => {
    server = await startTestServer();
    // On PostgreSQL a second process on the same database sees the same counts.
    if (TEST_DATABASE_URL) other = await startTestServer({ DATABASE_URL: server.env.DATABASE_URL! });
  });
  after(async () => {
    await other?.close();
    await server.close();
  });

  async function attempt(url: string, email: string, password: string) {
    return client(url).post('/auth/login', { email, password });
  }

  test('after 5 failures the next attempt waits (429 with Retry-After), even with the right password; after the wait it works and the count is cleared', async () => {
    const account = await createAccount(server.url);
    for (let i = 0; i < 5; i++) assert.equal((await attempt(server.url, account.email, `wrong guess ${i}`)).status, 401);
    // The sixth attempt, right password included, waits: from this process or another.
    const throttled = await attempt((other ?? server).url, account.email, account.password);
    assert.equal(throttled.status, 429, throttled.text);
    assert.equal(throttled.body.error.code, 'RATE_LIMIT_EXCEEDED');
    const retryAfter = Number(throttled.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 2, `Retry-After ${retryAfter}`);
    await sleep(retryAfter * 1000 + 200);
    const ok = await attempt(server.url, account.email.toUpperCase(), account.password);
    assert.equal(ok.status, 200, ok.text);
    // Cleared: five more wrong passwords are answered 401 again before any wait.
    for (let i = 0; i < 5; i++) assert.equal((await attempt(server.url, account.email, `again wrong ${i}`)).status, 401);
  });

  test('the delay grows with each failure past the free ones, and an unknown email is treated the same way', async () => {
    const unknown = uniqueEmail('nobody');
    for (let i = 0; i < 5; i++) assert.equal((await attempt(server.url, unknown, `guess ${i}`)).status, 401);
    const first = await attempt(server.url, unknown, 'guess 5');
    assert.equal(first.status, 429);
    await sleep(Number(first.headers.get('retry-after')) * 1000 + 200);
    assert.equal((await attempt(server.url, unknown, 'guess 6')).status, 401);
    const second = await attempt(server.url, unknown, 'guess 7');
    assert.equal(second.status, 429);
    assert.ok(Number(second.headers.get('retry-after')) >= 2, `Retry-After ${second.headers.get('retry-after')}`);
  });
});

describe('log-in throttling per address', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  test('20 failures from one address over many emails make the next attempt from it wait, whatever the email', async () => {
    for (let i = 0; i < 20; i++) {
      const response = await client(server.url).post('/auth/login', { email: uniqueEmail(`spray${i}`), password: 'Summer2026!' });
      assert.equal(response.status, 401, `attempt ${i}: ${response.text}`);
    }
    const next = await client(server.url).post('/auth/login', { email: uniqueEmail('fresh'), password: 'Summer2026!' });
    assert.equal(next.status, 429, next.text);
    assert.ok(Number(next.headers.get('retry-after')) >= 1);
  });
});
