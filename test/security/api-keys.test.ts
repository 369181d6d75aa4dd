import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, createProject, type TestProject } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { uniqueDomain, verifiedDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { startTestServer, startTestServerWithDns, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';

const message = (from: string) => ({
  from: { name: 'Bäckerei Sonnenschein', email: from },
  to: ['kundin@example.net'],
  subject: 'Ihre Bestellung 4711 ist fertig — 您的订单已准备好',
  body: '<p>Guten Morgen,</p><ul><li>2 Roggenbrote</li><li>6 Franzbrötchen</li></ul><p>Bis gleich!</p>',
});

describe('named API keys: a sending scope, sender domains, last use and revocation', () => {
  let server: TestServer;
  let dns: DnsServer;
  let project: TestProject;
  let shop: string;
  let news: string;
  // On PostgreSQL a second server on the same database (its own pools and key resolver): a revoked
  // key must fail there at once. (test/security/sessions.test.ts runs a second OS process.)
  let other: TestServer | undefined;
  const otherUrl = () => other?.url ?? server.url;
  const keysPath = () => `/users/@me/projects/${project.id}/api-keys`;
  const owner = () => client(server.url, { cookie: project.owner.cookie });

  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
    if (TEST_DATABASE_URL) other = await startTestServer({ DATABASE_URL: server.env.DATABASE_URL!, SESSION_SECRET: server.env.SESSION_SECRET! });
    project = await createProject(server.url);
    shop = (await verifiedDomain(project, dns, uniqueDomain('shop'))).domain;
    news = (await verifiedDomain(project, dns, uniqueDomain('news'))).domain;
  });
  after(async () => {
    await other?.close();
    await server.close();
  });

  test('a sending key sends, and is refused on /contacts and /v1/whoami with 403 API_KEY_SCOPE_INSUFFICIENT', async () => {
    const created = await owner().post(keysPath(), { name: 'Checkout service', scope: 'sending' });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.key, /^sk_[A-Za-z0-9_-]{54}$/);
    assert.equal(created.body.scope, 'sending');
    assert.equal(created.body.lastUsedAt, null);
    assert.ok(created.body.key.startsWith(created.body.keyStart));
    const sending = client(otherUrl(), { key: created.body.key });
    const sent = await sending.post('/v1/send', message(`bestellung@${shop}`));
    assert.equal(sent.status, 200, sent.text);
    for (const path of ['/contacts', '/v1/whoami', '/templates']) {
      const refused = await sending.get(path);
      assert.equal(refused.status, 403, `${path}: ${refused.text}`);
      assert.equal(refused.body.error.code, 'API_KEY_SCOPE_INSUFFICIENT');
    }
    const deleting = await sending.delete(`/contacts/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`);
    assert.equal(deleting.status, 403, deleting.text);
    // The list never shows the key again; its last use appears (written in the background).
    let listed = await owner().get(keysPath());
    for (let attempt = 0; attempt < 50 && !listed.body.data[0]?.lastUsedAt; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      listed = await owner().get(keysPath());
    }
    assert.equal(listed.status, 200, listed.text);
    const entry = listed.body.data.find((k: { id: string }) => k.id === created.body.id);
    assert.equal(entry.name, 'Checkout service');
    assert.equal(entry.key, undefined);
    assert.ok(!listed.text.includes(created.body.key));
    assert.ok(entry.lastUsedAt, 'lastUsedAt was set after the key was used');
  });

  test('a key restricted to a sender domain may not send from another verified domain', async () => {
    const created = await owner().post(keysPath(), { name: 'Shop only', scope: 'sending', senderDomains: [shop.toUpperCase()] });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.senderDomains, [shop]);
    const restricted = client(server.url, { key: created.body.key });
    assert.equal((await restricted.post('/v1/send', message(`rechnung@${shop}`))).status, 200);
    const refused = await restricted.post('/v1/send', message(`newsletter@${news}`));
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'SENDER_DOMAIN_NOT_ALLOWED_FOR_KEY');
  });

  test('a full key reaches every endpoint; revoked, it fails at once on every process', async () => {
    const created = await owner().post(keysPath(), { name: 'Back office', scope: 'full' });
    assert.equal(created.status, 201, created.text);
    const full = client(otherUrl(), { key: created.body.key });
    assert.equal((await full.get('/contacts')).status, 200);
    const whoami = await full.get('/v1/whoami');
    assert.equal(whoami.body.data.projectId, project.id);
    const revoked = await owner().delete(`${keysPath()}/${created.body.id}`);
    assert.equal(revoked.status, 204, revoked.text);
    for (const url of [server.url, otherUrl()]) {
      const after = await client(url, { key: created.body.key }).get('/contacts');
      assert.equal(after.status, 401, after.text);
      assert.equal(after.body.error.code, 'INVALID_API_KEY');
    }
    const listed = await owner().get(keysPath());
    assert.ok(!listed.body.data.some((k: { id: string }) => k.id === created.body.id));
    assert.equal((await owner().delete(`${keysPath()}/${created.body.id}`)).status, 404);
    // The project's own secret key is untouched.
    assert.equal((await project.api.get('/contacts')).status, 200);
  });

  test('only OWNER and ADMIN manage keys; a key forged with this project id is unknown', async () => {
    const member = await createAccount(server.url);
    assert.equal((await project.dashboard.post(`/projects/${project.id}/members`, { email: member.email, role: 'MEMBER' })).status, 201);
    const asMember = client(server.url, { cookie: member.cookie });
    assert.equal((await asMember.post(keysPath(), { name: 'Mine', scope: 'full' })).status, 403);
    assert.equal((await asMember.get(keysPath())).status, 403);
    const invalid = await owner().post(keysPath(), { name: 'Bad', scope: 'admin' });
    assert.equal(invalid.status, 422, invalid.text);
    const forged = `sk_${Buffer.concat([Buffer.from(project.id.replaceAll('-', ''), 'hex'), Buffer.alloc(24, 7)]).toString('base64url')}`;
    assert.equal((await client(server.url, { key: forged }).post('/v1/send', message(`x@${shop}`))).status, 401);
  });
});
