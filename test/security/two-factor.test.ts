import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Account, createAccount, createProject, sessionCookieFrom, uniqueEmail } from '../kit/accounts.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { clearOfStepEdge, totpCode, wrongTotpCode } from '../kit/totp.ts';

describe('two-factor sign-in (TOTP): enrolment, log-in with a code or a recovery code, disabling', () => {
  let server: TestServer;
  let account: Account;
  let secret: string;
  let recoveryCodes: string[];
  /** The codes that opened sessions, in order: each is spent once used. */
  const usedCodes: string[] = [];
  before(async () => {
    server = await startTestServer();
    account = await createAccount(server.url, uniqueEmail('zweifaktor'), 'Schneeflocken über Kyōto 雪');
  });
  after(() => server.close());

  const api = () => client(server.url);
  const me = () => client(server.url, { cookie: account.cookie });
  const login = () => api().post('/auth/login', { email: account.email, password: account.password });

  test('enrolment: a secret, its otpauth:// URI and a QR code; a wrong code does not enable it; a code of the previous step (clock drift) does and returns ten recovery codes', async () => {
    assert.equal((await me().get('/users/@me')).body.twoFactorEnabled, false);
    const start = await me().post('/users/@me/totp');
    assert.equal(start.status, 200, start.text);
    secret = start.body.secret;
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const uri = new URL(start.body.uri);
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), secret);
    assert.equal(uri.searchParams.get('issuer'), 'Mailroom');
    assert.ok(decodeURIComponent(uri.pathname).includes(account.email));
    assert.match(start.body.qrCode, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    assert.ok(Buffer.from(start.body.qrCode.split(',')[1], 'base64').subarray(1, 4).toString() === 'PNG');

    const wrong = await me().post('/users/@me/totp/confirm', { code: wrongTotpCode(secret) });
    assert.equal(wrong.status, 401, wrong.text);
    assert.equal(wrong.body.error.code, 'INVALID_TOTP_CODE');
    assert.equal((await me().get('/users/@me')).body.twoFactorEnabled, false);
    // Not enabled yet: the password alone still logs in.
    assert.equal((await login()).body.email, account.email);

    // One step of clock drift is allowed (the previous step's code, made clear of a step's end).
    await clearOfStepEdge();
    const confirm = await me().post('/users/@me/totp/confirm', { code: totpCode(secret, -1) });
    assert.equal(confirm.status, 200, confirm.text);
    recoveryCodes = confirm.body.recoveryCodes;
    assert.equal(recoveryCodes.length, 10);
    assert.equal(new Set(recoveryCodes).size, 10);
    assert.equal((await me().get('/users/@me')).body.twoFactorEnabled, true);
    const again = await me().post('/users/@me/totp');
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'TOTP_ALREADY_ENABLED');
  });

  test('log-in: the right password answers a challenge and no session; a wrong code is refused; a current code opens the session', async () => {
    const first = await login();
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.twoFactorRequired, true);
    assert.equal(typeof first.body.challenge, 'string');
    assert.equal(first.headers.getSetCookie().filter((c) => c.startsWith('mailroom_session=') && !c.startsWith('mailroom_session=;')).length, 0);

    const wrong = await api().post('/auth/login/totp', { challenge: first.body.challenge, code: wrongTotpCode(secret) });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'INVALID_TOTP_CODE');
    const forged = await api().post('/auth/login/totp', { challenge: `${first.body.challenge}x`, code: totpCode(secret) });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error.code, 'INVALID_TOTP_CHALLENGE');

    const code = totpCode(secret);
    const second = await api().post('/auth/login/totp', { challenge: first.body.challenge, code });
    assert.equal(second.status, 200, second.text);
    usedCodes.push(code);
    assert.equal(second.body.email, account.email);
    const cookie = sessionCookieFrom(second.headers);
    assert.equal((await client(server.url, { cookie }).get('/users/@me')).body.email, account.email);
  });

  test('a code is accepted once (RFC 6238 §5.2): seen again, even within its step, it is refused; the next code the app shows opens a session', async () => {
    // The code of the log-in above, its step and every step before it are spent.
    const replay = await api().post('/auth/login/totp', { challenge: (await login()).body.challenge, code: usedCodes[0]! });
    assert.equal(replay.status, 401, replay.text);
    assert.equal(replay.body.error.code, 'INVALID_TOTP_CODE');
    const older = await api().post('/auth/login/totp', { challenge: (await login()).body.challenge, code: totpCode(secret, -1) });
    assert.equal(older.status, 401, older.text);
    const nextCode = totpCode(secret, 1);
    const next = await api().post('/auth/login/totp', { challenge: (await login()).body.challenge, code: nextCode });
    assert.equal(next.status, 200, next.text);
    usedCodes.push(nextCode);
    assert.equal(next.body.email, account.email);
  });

  test('a recovery code opens a session once; the second use is refused', async () => {
    const code = recoveryCodes[3]!;
    const first = await api().post('/auth/login/totp', { challenge: (await login()).body.challenge, recoveryCode: code.toUpperCase() });
    assert.equal(first.status, 200, first.text);
    const reuse = await api().post('/auth/login/totp', { challenge: (await login()).body.challenge, recoveryCode: code });
    assert.equal(reuse.status, 401);
    assert.equal(reuse.body.error.code, 'INVALID_TOTP_CODE');
  });

  test('wrong codes count in the log-in throttle: after five, even the right code waits (429)', async () => {
    const other = await createAccount(server.url, uniqueEmail('drossel'), 'Glühwürmchen im Juni');
    const start = await client(server.url, { cookie: other.cookie }).post('/users/@me/totp');
    const otherSecret = start.body.secret;
    await client(server.url, { cookie: other.cookie }).post('/users/@me/totp/confirm', { code: totpCode(otherSecret) });
    const challenge = (await api().post('/auth/login', { email: other.email, password: other.password })).body.challenge;
    for (let i = 0; i < 5; i++) assert.equal((await api().post('/auth/login/totp', { challenge, code: wrongTotpCode(otherSecret) })).status, 401);
    const throttled = await api().post('/auth/login/totp', { challenge, code: totpCode(otherSecret) });
    assert.equal(throttled.status, 429, throttled.text);
    assert.ok(Number(throttled.headers.get('retry-after')) >= 1);
  });

  test('disable: a wrong code is refused, and so is a code already used; a recovery code turns it off and the password alone logs in again', async () => {
    const wrong = await me().post('/users/@me/totp/disable', { code: wrongTotpCode(secret) });
    assert.equal(wrong.status, 401);
    const both = await me().post('/users/@me/totp/disable', { code: totpCode(secret), recoveryCode: recoveryCodes[0] });
    assert.equal(both.status, 422);
    const spent = await me().post('/users/@me/totp/disable', { code: usedCodes.at(-1)! });
    assert.equal(spent.status, 401, spent.text);
    assert.equal((await me().get('/users/@me')).body.twoFactorEnabled, true);
    const off = await me().post('/users/@me/totp/disable', { recoveryCode: recoveryCodes[0] });
    assert.equal(off.status, 200, off.text);
    assert.equal((await me().get('/users/@me')).body.twoFactorEnabled, false);
    const plain = await login();
    assert.equal(plain.body.email, account.email);
    sessionCookieFrom(plain.headers);
  });
});

describe('a project can require two-factor sign-in of every member (OWNER only, audited)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.close());

  async function enrol(account: Account): Promise<string> {
    const http = client(server.url, { cookie: account.cookie });
    const secret = (await http.post('/users/@me/totp')).body.secret;
    assert.equal((await http.post('/users/@me/totp/confirm', { code: totpCode(secret) })).status, 200);
    return secret;
  }

  test('an ADMIN cannot set it; an OWNER without two-factor cannot; with it they can, and the change is audited', async () => {
    const project = await createProject(server.url);
    const admin = await createAccount(server.url, uniqueEmail('verwaltung'), 'Bergpfad nach Zermatt 山道');
    assert.equal((await client(server.url).post(`/projects/${project.id}/members`, { email: admin.email, role: 'ADMIN' }, { cookie: project.owner.cookie })).status, 201);
    const path = `/users/@me/projects/${project.id}`;
    const byAdmin = await client(server.url, { cookie: admin.cookie }).patch(path, { requireTwoFactor: true });
    assert.equal(byAdmin.status, 403, byAdmin.text);
    const ownerHttp = client(server.url, { cookie: project.owner.cookie });
    const withoutIt = await ownerHttp.patch(path, { requireTwoFactor: true });
    assert.equal(withoutIt.status, 403, withoutIt.text);
    assert.equal(withoutIt.body.error.code, 'TWO_FACTOR_REQUIRED');
    await enrol(project.owner);
    const set = await ownerHttp.patch(path, { requireTwoFactor: true });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.body.requireTwoFactor, true);
    const audit = await ownerHttp.get(`/projects/${project.id}/audit-log`);
    assert.ok(JSON.stringify(audit.body).includes('project.two_factor_requirement_changed'), `the change is in the audit log: ${audit.text.slice(0, 300)}`);
  });

  test('a member without two-factor gets 403 TWO_FACTOR_REQUIRED on the project until they enrol; API keys still work', async () => {
    const project = await createProject(server.url);
    await enrol(project.owner);
    const member = await createAccount(server.url, uniqueEmail('mitglied'), 'Sonnenblumenfeld im August');
    assert.equal((await client(server.url).post(`/projects/${project.id}/members`, { email: member.email, role: 'MEMBER' }, { cookie: project.owner.cookie })).status, 201);
    const asMember = client(server.url, { cookie: member.cookie, projectId: project.id });
    assert.equal((await asMember.get('/contacts')).status, 200, 'not required yet');
    assert.equal((await client(server.url, { cookie: project.owner.cookie }).patch(`/users/@me/projects/${project.id}`, { requireTwoFactor: true })).status, 200);

    const refused = await asMember.get('/contacts');
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'TWO_FACTOR_REQUIRED');
    assert.match(refused.body.error.message, /two-factor/);
    assert.equal((await project.dashboard.get('/contacts')).status, 200, 'the enrolled owner goes on');
    assert.equal((await project.api.get('/contacts')).status, 200, 'the secret key is not affected');

    await enrol(member);
    assert.equal((await asMember.get('/contacts')).status, 200, 'enrolled: allowed again');
  });
});
