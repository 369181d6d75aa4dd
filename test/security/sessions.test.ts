import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, sessionCookieFrom, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { type SpawnedServer, spawnServer, startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

const FIREFOX = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';

async function logIn(url: string, email: string, password: string, userAgent: string): Promise<string> {
  const response = await client(url).post('/auth/login', { email, password }, { headers: { 'user-agent': userAgent } });
  assert.equal(response.status, 200, response.text);
  return sessionCookieFrom(response.headers);
}

describe('sessions are server-side records: logout, sign out one or everywhere, password change', () => {
  let server: TestServer;
  // On PostgreSQL a second OS process on the same database: an ended session must fail there at once.
  let other: SpawnedServer | undefined;
  const otherUrl = () => other?.url ?? server.url;
  before(async () => {
    server = await startTestServer();
    if (TEST_DATABASE_URL) other = await spawnServer({ ...server.env });
  });
  after(async () => {
    await other?.stop();
    await server.close();
  });

  test('logout ends the session at once, on every process; the old cookie answers 401', async () => {
    const account = await createAccount(server.url);
    const laptop = await logIn(server.url, account.email, account.password, FIREFOX);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: laptop })).status, 200);
    const out = await client(server.url).get('/auth/logout', { cookie: laptop });
    assert.equal(out.status, 200, out.text);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: laptop })).status, 401);
    assert.equal((await client(server.url).get('/users/@me', { cookie: laptop })).status, 401);
    // The sign-up session was not touched.
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: account.cookie })).status, 200);
  });

  test('the Sessions list shows device, address, last seen and which one is mine; one can be signed out', async () => {
    const account = await createAccount(server.url);
    const laptop = await logIn(server.url, account.email, account.password, FIREFOX);
    const phone = await logIn(server.url, account.email, account.password, SAFARI_IPHONE);
    const listed = await client(server.url).get('/users/@me/sessions', { cookie: laptop });
    assert.equal(listed.status, 200, listed.text);
    assert.equal(listed.body.data.length, 3);
    const devices = listed.body.data.map((s: { device: string }) => s.device).sort();
    assert.ok(devices.includes('Firefox 133 on Windows'), JSON.stringify(devices));
    assert.ok(devices.includes('Safari 17 on iOS'), JSON.stringify(devices));
    const mine = listed.body.data.filter((s: { current: boolean }) => s.current);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].device, 'Firefox 133 on Windows');
    assert.equal(mine[0].ip, '127.0.0.1');
    assert.ok(Date.parse(mine[0].lastSeenAt) >= Date.parse(mine[0].createdAt));
    const phoneSession = listed.body.data.find((s: { device: string }) => s.device === 'Safari 17 on iOS');
    const ended = await client(server.url).delete(`/users/@me/sessions/${phoneSession.id}`, undefined, { cookie: laptop });
    assert.equal(ended.status, 204, ended.text);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: phone })).status, 401);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: laptop })).status, 200);
    // Another account's session cannot be ended by id.
    const stranger = await createAccount(server.url);
    const mineNow = (await client(server.url).get('/users/@me/sessions', { cookie: laptop })).body.data.find((s: { current: boolean }) => s.current);
    assert.equal((await client(server.url).delete(`/users/@me/sessions/${mineNow.id}`, undefined, { cookie: stranger.cookie })).status, 404);
    assert.equal((await client(server.url).get('/users/@me', { cookie: laptop })).status, 200);
  });

  test('"sign out everywhere" ends every other session and keeps this one', async () => {
    const account = await createAccount(server.url);
    const laptop = await logIn(server.url, account.email, account.password, FIREFOX);
    const phone = await logIn(server.url, account.email, account.password, SAFARI_IPHONE);
    const response = await client(server.url).delete('/users/@me/sessions', undefined, { cookie: laptop });
    assert.equal(response.status, 200, response.text);
    assert.equal(response.body.ended, 2);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: phone })).status, 401);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: account.cookie })).status, 401);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: laptop })).status, 200);
    const listed = await client(server.url).get('/users/@me/sessions', { cookie: laptop });
    assert.deepEqual(
      listed.body.data.map((s: { current: boolean }) => s.current),
      [true],
    );
  });

  test('a password change needs the current password and ends the other sessions', async () => {
    const account = await createAccount(server.url);
    const phone = await logIn(server.url, account.email, account.password, SAFARI_IPHONE);
    const wrong = await client(server.url).post(
      '/users/@me/password',
      { currentPassword: 'not my password at all', newPassword: 'Vogelgezwitscher im Morgengrauen' },
      { cookie: account.cookie },
    );
    assert.equal(wrong.status, 401, wrong.text);
    assert.equal((await client(server.url).get('/users/@me', { cookie: phone })).status, 200);
    const changed = await client(server.url).post(
      '/users/@me/password',
      { currentPassword: account.password, newPassword: 'Vogelgezwitscher im Morgengrauen' },
      { cookie: account.cookie },
    );
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.endedSessions, 1);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: phone })).status, 401);
    assert.equal((await client(otherUrl()).get('/users/@me', { cookie: account.cookie })).status, 200);
    assert.equal((await client(server.url).post('/auth/login', { email: account.email, password: account.password })).status, 401);
    await logIn(server.url, account.email, 'Vogelgezwitscher im Morgengrauen', FIREFOX);
  });

  test("a password made of the account's own address is refused (sign-up and change)", async () => {
    const local = `wintergarten-${Math.random().toString(36).slice(2, 8)}`;
    const email = `${local}@example.test`;
    const signup = await client(server.url).post('/auth/signup', { email, password: local });
    assert.equal(signup.status, 422, signup.text);
    assert.equal(signup.body.error.errors[0].field, 'password');
    assert.equal(signup.body.error.errors[0].code, 'weak_password');
    assert.equal((await client(server.url).post('/auth/signup', { email, password: email })).status, 422);
    const account = await createAccount(server.url, uniqueEmail('rosenkohl'));
    const own = account.email.split('@')[0]!;
    const change = await client(server.url).post('/users/@me/password', { currentPassword: account.password, newPassword: own }, { cookie: account.cookie });
    assert.equal(change.status, 422, change.text);
    assert.equal(change.body.error.errors[0].field, 'newPassword');
  });
});
