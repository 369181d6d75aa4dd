import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, DEFAULT_PASSWORD, sessionCookieFrom, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SinkMessage, type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

describe('Email verification, password reset and OAuth configuration (the API reference: account administration)', () => {
  let server: TestServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    server = await startTestServer({ SMTP_URL: sink.url, PUBLIC_URL: 'https://mail.example.test' });
  });
  after(async () => {
    await server.close();
    await sink.close();
  });

  const http = () => client(server.url);

  /** The n-th message mailed to `address` (1-based), once it has arrived. */
  async function mailTo(address: string, n = 1): Promise<SinkMessage> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const found = sink.messages.filter((m) => m.envelope.to.includes(address));
      if (found.length >= n) return found[n - 1]!;
      if (Date.now() > deadline) assert.fail(`no message ${n} to ${address}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  const tokenIn = (message: SinkMessage) => /token to POST \/auth\/[a-z-]+:\n(\S+)/.exec(message.parsed.text ?? '')![1]!;

  test('password reset: a mailed token sets a new password once; the second use is refused', async () => {
    const account = await createAccount(server.url, uniqueEmail('reset'));
    const asked = await http().post('/auth/request-password-reset', { email: account.email.toUpperCase() });
    assert.equal(asked.status, 202, asked.text);
    assert.deepEqual(asked.body, { success: true });
    const message = await mailTo(account.email);
    assert.equal(message.parsed.subject, 'Reset your password');
    assert.equal(message.envelope.from, 'no-reply@mail.example.test');
    const token = tokenIn(message);
    assert.ok(typeof message.parsed.html === 'string' && message.parsed.html.includes(`https://mail.example.test/reset-password?token=${encodeURIComponent(token)}`));

    const reset = await http().post('/auth/reset-password', { token, password: 'a brand new password' });
    assert.equal(reset.status, 200, reset.text);
    assert.deepEqual(reset.body, { success: true });
    assert.equal((await http().post('/auth/login', { email: account.email, password: DEFAULT_PASSWORD })).status, 401, 'the old password is gone');
    const login = await http().post('/auth/login', { email: account.email, password: 'a brand new password' });
    assert.equal(login.status, 200);

    const twice = await http().post('/auth/reset-password', { token, password: 'yet another password' });
    assert.equal(twice.status, 400, twice.text);
    assert.equal(twice.body.error.code, 'INVALID_TOKEN');
    assert.equal((await http().post('/auth/login', { email: account.email, password: 'yet another password' })).status, 401);
  });

  test('a password reset ends every session started before it; a session started after it works', async () => {
    const account = await createAccount(server.url, uniqueEmail('sessions'));
    const otherLogin = await http().post('/auth/login', { email: account.email, password: DEFAULT_PASSWORD });
    const before = [account.cookie, sessionCookieFrom(otherLogin.headers)];
    for (const cookie of before) assert.equal((await http().get('/users/@me', { cookie })).status, 200, 'logged in before the reset');

    await http().post('/auth/request-password-reset', { email: account.email });
    const reset = await http().post('/auth/reset-password', { token: tokenIn(await mailTo(account.email)), password: 'a fresh password here' });
    assert.equal(reset.status, 200, reset.text);
    for (const cookie of before) {
      const me = await http().get('/users/@me', { cookie });
      assert.equal(me.status, 401, 'a session from before the reset has ended');
      assert.equal(me.body.error.code, 'UNAUTHORIZED');
    }

    const login = await http().post('/auth/login', { email: account.email, password: 'a fresh password here' });
    const me = await http().get('/users/@me', { cookie: sessionCookieFrom(login.headers) });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.email, account.email);
  });

  test('reset tokens: forged, of another purpose, superseded or expired are refused; an unknown address gets the same 202 and no mail', async () => {
    const account = await createAccount(server.url, uniqueEmail('tokens'));
    const unknown = uniqueEmail('nobody');
    assert.equal((await http().post('/auth/request-password-reset', { email: unknown })).status, 202);
    const malformed = await http().post('/auth/request-password-reset', { email: '' });
    assert.equal(malformed.status, 422, 'an empty address is refused, not mailed to no one');
    assert.deepEqual(
      malformed.body.error.errors.map((e: any) => [e.field, e.code]),
      [['email', 'invalid_string']],
    );
    await http().post('/auth/request-password-reset', { email: account.email });
    const older = tokenIn(await mailTo(account.email, 1));
    await http().post('/auth/request-password-reset', { email: account.email });
    const newer = tokenIn(await mailTo(account.email, 2));
    assert.equal(sink.messages.filter((m) => m.envelope.to.includes(unknown)).length, 0, 'no account, no mail');

    const [body, signature] = newer.split('.');
    const flipped = signature![5] === 'A' ? 'B' : 'A';
    const forged = `${body}.${signature!.slice(0, 5)}${flipped}${signature!.slice(6)}`;
    for (const token of [forged, 'not-a-token', older]) {
      const res = await http().post('/auth/reset-password', { token, password: 'whatever password' });
      assert.equal(res.status, 400, token);
      assert.equal(res.body.error.code, 'INVALID_TOKEN');
    }
    assert.equal((await http().post('/auth/verify-email', { token: newer })).status, 400, 'a reset token does not verify an address');
    assert.equal((await http().post('/auth/reset-password', { token: newer, password: 'short' })).status, 422, 'the password policy applies');

    await server.deps.db.query(`UPDATE auth_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1`, [account.id]);
    const expired = await http().post('/auth/reset-password', { token: newer, password: 'whatever password' });
    assert.equal(expired.status, 400, 'expired');
    assert.equal((await http().post('/auth/login', { email: account.email, password: DEFAULT_PASSWORD })).status, 200, 'the password is unchanged');
  });

  test('email verification: requested with a session, confirmed once by the mailed token', async () => {
    const account = await createAccount(server.url, uniqueEmail('verify'));
    assert.equal((await http().post('/auth/request-verification')).status, 401, 'needs a session');
    const asked = await http().post('/auth/request-verification', undefined, { cookie: account.cookie });
    assert.equal(asked.status, 202, asked.text);
    const message = await mailTo(account.email);
    assert.equal(message.parsed.subject, 'Confirm your email address');
    const token = tokenIn(message);
    const verified = await http().post('/auth/verify-email', { token });
    assert.equal(verified.status, 200, verified.text);
    assert.equal(verified.body.id, account.id);
    assert.equal(verified.body.email, account.email);
    assert.ok(Date.parse(verified.body.emailVerifiedAt) <= Date.now());
    const twice = await http().post('/auth/verify-email', { token });
    assert.equal(twice.status, 400);
    assert.equal(twice.body.error.code, 'INVALID_TOKEN');
    assert.equal((await http().post('/auth/reset-password', { token, password: 'a brand new password' })).status, 400, 'nor does it reset a password');
    // Once verified, asking again sends nothing.
    assert.equal((await http().post('/auth/request-verification', undefined, { cookie: account.cookie })).status, 202);
    const [row] = await server.deps.db.query<{ count: number }>(`SELECT count(*)::int AS count FROM auth_tokens WHERE user_id = $1`, [account.id]);
    assert.equal(row!.count, 1);
  });

  test('at most 5 tokens per purpose and hour: later requests are answered alike and issue nothing', async () => {
    const account = await createAccount(server.url, uniqueEmail('flood'));
    for (let i = 0; i < 7; i++) assert.equal((await http().post('/auth/request-password-reset', { email: account.email })).status, 202);
    // A token superseded before its mail left is not mailed at all: only the latest link works.
    await mailTo(account.email, 1);
    const [row] = await server.deps.db.query<{ count: number }>(`SELECT count(*)::int AS count FROM auth_tokens WHERE user_id = $1`, [account.id]);
    assert.equal(row!.count, 5);
  });

  test('GET /auth/oauth-config lists no providers; sign-up and login still work alongside', async () => {
    const res = await http().get('/auth/oauth-config');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { providers: [] });
    const signup = await http().post('/auth/signup', { email: uniqueEmail(), password: DEFAULT_PASSWORD });
    assert.ok(sessionCookieFrom(signup.headers));
  });
});
