import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashPassword } from '../../src/auth/passwords.ts';
import { createAccount, DEFAULT_PASSWORD, sessionCookieFrom, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

const setCookieOf = (headers: Headers) => headers.getSetCookie().find((line) => line.startsWith('mailroom_session='));

describe('accounts: sign-up, log-in, log-out, current user', () => {
  let server: TestServer;
  let http: ReturnType<typeof client>;
  before(async () => {
    server = await startTestServer();
    http = client(server.url);
  });
  after(() => server.close());

  test('sign-up answers 201 { id, email } and sets an HttpOnly, SameSite=Lax session cookie (not Secure over http)', async () => {
    const email = uniqueEmail();
    const res = await http.post('/auth/signup', { email, password: DEFAULT_PASSWORD });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ['email', 'id']);
    assert.equal(res.body.email, email);
    assert.match(res.body.id, /^[0-9a-f-]{36}$/);
    const cookie = setCookieOf(res.headers);
    assert.ok(cookie, 'a session cookie is set');
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Path=\//);
    assert.match(cookie, /Max-Age=604800/, 'sessions last 7 days');
    assert.doesNotMatch(cookie, /Secure/i);

    const me = await http.get('/users/@me', { cookie: sessionCookieFrom(res.headers) });
    assert.equal(me.status, 200);
    assert.deepEqual(Object.keys(me.body).sort(), ['createdAt', 'email', 'id', 'twoFactorEnabled']);
    assert.equal(me.body.id, res.body.id);
    assert.equal(me.body.email, email);
    assert.ok(!Number.isNaN(Date.parse(me.body.createdAt)));
  });

  test('emails are stored lower-cased, and an address taken in any case is a 409', async () => {
    const email = uniqueEmail('MixedCase');
    const first = await http.post('/auth/signup', { email, password: DEFAULT_PASSWORD });
    assert.equal(first.status, 201);
    assert.equal(first.body.email, email.toLowerCase());
    const again = await http.post('/auth/signup', { email: email.toUpperCase(), password: 'another password' });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'EMAIL_IN_USE');
    assert.equal(setCookieOf(again.headers), undefined, 'no session for a refused sign-up');
  });

  test('passwords must be 8 to 128 characters; emails must be valid (422 with field errors)', async () => {
    const short = await http.post('/auth/signup', { email: uniqueEmail(), password: '1234567' });
    assert.equal(short.status, 422);
    assert.deepEqual(
      short.body.error.errors.map((e: any) => [e.field, e.code]),
      [['password', 'too_small']],
    );

    const long = await http.post('/auth/signup', { email: uniqueEmail(), password: 'x'.repeat(129) });
    assert.equal(long.status, 422);
    assert.deepEqual(
      long.body.error.errors.map((e: any) => [e.field, e.code]),
      [['password', 'too_big']],
    );

    // 128 and 8 characters pass when not easily guessed (a repeated letter is refused: test/security/accounts.test.ts).
    const sentence = 'Die Kaffeemühle am Fenster mahlt jeden Morgen um sieben Uhr, while the kettle hums a tune from 1987 and the cat ignores everyone!!'.slice(0, 128);
    assert.equal(sentence.length, 128);
    assert.equal((await http.post('/auth/signup', { email: uniqueEmail(), password: sentence })).status, 201);
    assert.equal((await http.post('/auth/signup', { email: uniqueEmail(), password: 'kQ9$vT2!' })).status, 201);

    const badEmail = await http.post('/auth/signup', { email: 'not-an-email', password: DEFAULT_PASSWORD });
    assert.equal(badEmail.status, 422);
    assert.deepEqual(
      badEmail.body.error.errors.map((e: any) => [e.field, e.code]),
      [['email', 'invalid_string']],
    );

    const wrongType = await http.post('/auth/signup', { email: 42, password: DEFAULT_PASSWORD });
    assert.equal(wrongType.status, 422);
    assert.deepEqual(
      wrongType.body.error.errors.map((e: any) => [e.field, e.code, e.received]),
      [['email', 'invalid_type', 'number']],
    );
  });

  test('log-in with the right password answers 200 { id, email } and a working session', async () => {
    const account = await createAccount(server.url);
    const res = await http.post('/auth/login', { email: account.email.toUpperCase(), password: account.password });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { id: account.id, email: account.email });
    const cookie = setCookieOf(res.headers)!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    const me = await http.get('/users/@me', { cookie: sessionCookieFrom(res.headers) });
    assert.equal(me.status, 200);
    assert.equal(me.body.id, account.id);
  });

  test('a wrong password and an unknown email both answer 401 INVALID_CREDENTIALS, with no cookie', async () => {
    const account = await createAccount(server.url);
    const wrong = await http.post('/auth/login', { email: account.email, password: 'wrong password' });
    const unknown = await http.post('/auth/login', { email: uniqueEmail('nobody'), password: DEFAULT_PASSWORD });
    for (const res of [wrong, unknown]) {
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'INVALID_CREDENTIALS');
      assert.equal(setCookieOf(res.headers), undefined);
    }
    assert.equal(wrong.body.error.message, unknown.body.error.message, 'the answer does not say which part was wrong');
    const missing = await http.post('/auth/login', { email: account.email });
    assert.equal(missing.status, 422);
    assert.deepEqual(
      missing.body.error.errors.map((e: any) => [e.field, e.code, e.received]),
      [['password', 'invalid_type', 'undefined']],
    );
  });

  test('GET /auth/logout clears the cookie', async () => {
    const res = await http.get('/auth/logout');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { success: true });
    const cleared = setCookieOf(res.headers);
    assert.ok(cleared, 'the cookie is overwritten');
    assert.match(cleared, /^mailroom_session=;/);
    assert.match(cleared, /Expires=Thu, 01 Jan 1970|Max-Age=0/);
  });

  test('GET /users/@me needs a valid session: none, forged or for a deleted user → 401', async () => {
    const none = await http.get('/users/@me');
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'UNAUTHORIZED');
    const forged = await http.get('/users/@me', { cookie: 'mailroom_session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl' });
    assert.equal(forged.status, 401);
    const account = await createAccount(server.url);
    await server.deps.db.query('DELETE FROM users WHERE id = $1', [account.id]);
    assert.equal((await http.get('/users/@me', { cookie: account.cookie })).status, 401);
  });
});

describe('accounts on a deployment with sign-up off and an https PUBLIC_URL', () => {
  let server: TestServer;
  let http: ReturnType<typeof client>;
  before(async () => {
    server = await startTestServer({ SIGNUP_ENABLED: 'false', PUBLIC_URL: 'https://mail.example.test' });
    http = client(server.url);
  });
  after(() => server.close());

  test('POST /auth/signup answers 403 SIGNUP_DISABLED and creates nothing', async () => {
    const email = uniqueEmail();
    const res = await http.post('/auth/signup', { email, password: DEFAULT_PASSWORD });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'SIGNUP_DISABLED');
    assert.equal(setCookieOf(res.headers), undefined);
    const rows = await server.deps.db.query('SELECT 1 FROM users WHERE email = $1', [email]);
    assert.equal(rows.length, 0);
  });

  test('existing users still log in, and the cookie is Secure because the public URL is https', async () => {
    const email = uniqueEmail();
    await server.deps.db.query('INSERT INTO users (email, password_hash) VALUES ($1, $2)', [email, await hashPassword(DEFAULT_PASSWORD)]);
    const res = await http.post('/auth/login', { email, password: DEFAULT_PASSWORD });
    assert.equal(res.status, 200);
    assert.match(setCookieOf(res.headers)!, /;\s*Secure/i);
  });
});
