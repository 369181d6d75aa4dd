import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, test } from 'node:test';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import nodemailer from 'nodemailer';
import { toServerAddress } from '../../src/dns/resolver.ts';
import { assertSenderAllowed, signingKeyFor } from '../../src/domains/domains.service.ts';
import { createProject } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { publishRecords, uniqueDomain, verifiedDomain } from '../kit/domains.ts';
import { startTestServer, startTestServerWithDns, type TestServer } from '../kit/server.ts';

type DnsRecord = { type: string; name: string; value: string; required: boolean };
const dkimOf = (domain: { records: DnsRecord[] }) => domain.records.find((record) => record.required)!;

describe('sender domains (docs/decisions/domains.md)', () => {
  let dns: DnsServer;
  let server: TestServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  test('POST /domains answers 201 pending with the DKIM, SPF and DMARC records and never the private key', async () => {
    const project = await createProject(server.url);
    const name = uniqueDomain('Create');
    const res = await project.api.post('/domains', { domain: `  ${name.toUpperCase()}. ` });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.domain, name.toLowerCase());
    assert.equal(res.body.status, 'pending');
    assert.equal(res.body.verifiedAt, null);
    assert.equal(res.body.lastCheckedAt, null);
    assert.ok(!Number.isNaN(Date.parse(res.body.createdAt)));
    assert.doesNotMatch(res.text, /PRIVATE|privateKey|private_key/i);

    const [dkim, spf, dmarc] = res.body.records as DnsRecord[];
    assert.match(dkim!.name, new RegExp(`^mr[0-9a-f]{10}\\._domainkey\\.${res.body.domain.replaceAll('.', '\\.')}$`));
    assert.match(dkim!.value, /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
    assert.deepEqual({ type: dkim!.type, required: dkim!.required }, { type: 'TXT', required: true });
    assert.deepEqual({ type: spf!.type, name: spf!.name, required: spf!.required }, { type: 'TXT', name: res.body.domain, required: false });
    assert.match(spf!.value, /^v=spf1 .*~all$/);
    assert.deepEqual(
      { type: dmarc!.type, name: dmarc!.name, value: dmarc!.value, required: dmarc!.required },
      { type: 'TXT', name: `_dmarc.${res.body.domain}`, value: 'v=DMARC1; p=none;', required: false },
    );

    const key = createPublicKey({ key: Buffer.from(dkim!.value.split('p=')[1]!, 'base64'), format: 'der', type: 'spki' });
    assert.equal(key.asymmetricKeyType, 'rsa');
    assert.equal(key.asymmetricKeyDetails?.modulusLength, 2048);

    const other = await project.api.post('/domains', { domain: uniqueDomain() });
    assert.notEqual(dkimOf(other.body).value, dkim!.value, 'each domain gets its own key');
    assert.notEqual(dkimOf(other.body).name.split('.')[0], dkim!.name.split('.')[0], 'and its own selector');
  });

  test('a domain stays pending until its DKIM record is published, then verifies (also through the dashboard session)', async () => {
    const project = await createProject(server.url);
    const created = await project.dashboard.post('/domains', { domain: uniqueDomain() });
    assert.equal(created.status, 201, created.text);

    const before = await project.api.get(`/domains/${created.body.id}/verify`);
    assert.equal(before.status, 200);
    assert.equal(before.body.status, 'pending');
    assert.equal(before.body.verifiedAt, null);
    assert.ok(Date.parse(before.body.lastCheckedAt) > 0, 'lastCheckedAt is recorded');

    publishRecords(dns, created.body);
    const after = await project.dashboard.get(`/domains/${created.body.id}/verify`);
    assert.equal(after.status, 200);
    assert.equal(after.body.status, 'verified');
    assert.ok(Date.parse(after.body.verifiedAt) >= Date.parse(before.body.lastCheckedAt));
    assert.ok(Date.parse(after.body.lastCheckedAt) >= Date.parse(before.body.lastCheckedAt));

    const list = await project.api.get(`/domains/project/${project.id}`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.data.map((d: { id: string; status: string }) => [d.id, d.status]),
      [[created.body.id, 'verified']],
    );
    const one = await project.api.get(`/domains/${created.body.id}`);
    assert.equal(one.body.status, 'verified');
  });

  test('a DKIM TXT record split into several strings verifies: the strings are joined', async () => {
    const project = await createProject(server.url);
    const created = await project.api.post('/domains', { domain: uniqueDomain() });
    const { name, value } = dkimOf(created.body);
    dns.set(name, 'TXT', [[value.slice(0, 16), value.slice(16, 200), value.slice(200)]]);
    const res = await project.api.get(`/domains/${created.body.id}/verify`);
    assert.equal(res.body.status, 'verified', res.text);
  });

  test('a verified domain whose record disappears or changes goes back to pending at the next check', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const name = `${domain.selector}._domainkey.${domain.domain}`;

    dns.remove(name, 'TXT');
    const removed = await project.api.get(`/domains/${domain.id}/verify`);
    assert.equal(removed.body.status, 'pending');
    assert.equal(removed.body.verifiedAt, null);
    await assert.rejects(assertSenderAllowed(server.deps.db, project.id, `hello@${domain.domain}`));

    dns.set(name, 'TXT', [`v=DKIM1; k=rsa; p=${domain.publicKey}`]);
    assert.equal((await project.api.get(`/domains/${domain.id}/verify`)).body.status, 'verified');
    dns.set(name, 'TXT', [`v=DKIM1; k=rsa; p=${domain.publicKey.slice(0, -8)}AAAAAAA=`]);
    assert.equal((await project.api.get(`/domains/${domain.id}/verify`)).body.status, 'pending');
  });

  test('a wrong value, or a second TXT record beside the right one, stays pending', async () => {
    const project = await createProject(server.url);
    const created = await project.api.post('/domains', { domain: uniqueDomain() });
    const other = await project.api.post('/domains', { domain: uniqueDomain() });
    const { name, value } = dkimOf(created.body);

    dns.set(name, 'TXT', [dkimOf(other.body).value]);
    assert.equal((await project.api.get(`/domains/${created.body.id}/verify`)).body.status, 'pending');
    dns.set(name, 'TXT', [value.replace('k=rsa; ', '')]);
    assert.equal((await project.api.get(`/domains/${created.body.id}/verify`)).body.status, 'pending');
    dns.set(name, 'TXT', [value, 'v=DKIM1; k=rsa; p=AAAA']);
    assert.equal((await project.api.get(`/domains/${created.body.id}/verify`)).body.status, 'pending');
    // Surrounding whitespace alone is forgiven (docs/decisions/domains.md).
    dns.set(name, 'TXT', [` ${value} `]);
    assert.equal((await project.api.get(`/domains/${created.body.id}/verify`)).body.status, 'verified');
  });

  test('the same domain twice in a project is 409; a domain verified by another project is 409', async () => {
    const first = await createProject(server.url);
    const second = await createProject(server.url);
    const name = uniqueDomain();

    const pending = await first.api.post('/domains', { domain: name });
    assert.equal(pending.status, 201);
    const again = await first.api.post('/domains', { domain: name.toUpperCase() });
    assert.equal(again.status, 409);
    assert.equal(again.body.error.code, 'DOMAIN_EXISTS');

    // Pending elsewhere does not block: anyone may claim a name, only DNS proves it.
    const claim = await second.api.post('/domains', { domain: name });
    assert.equal(claim.status, 201);

    publishRecords(dns, pending.body);
    publishRecords(dns, claim.body);
    assert.equal((await first.api.get(`/domains/${pending.body.id}/verify`)).body.status, 'verified');
    // The second project's records are right too, but the name is verified in the first one.
    assert.equal((await second.api.get(`/domains/${claim.body.id}/verify`)).body.status, 'pending');

    const third = await createProject(server.url);
    const taken = await third.api.post('/domains', { domain: name });
    assert.equal(taken.status, 409);
    assert.equal(taken.body.error.code, 'DOMAIN_VERIFIED_ELSEWHERE');

    // Once the first project lets go, the second project's check succeeds.
    assert.equal((await first.api.delete(`/domains/${pending.body.id}`)).status, 204);
    assert.equal((await second.api.get(`/domains/${claim.body.id}/verify`)).body.status, 'verified');
  });

  test("another project's domain is a 404 on read, verify and delete; another project's list is a 404", async () => {
    const owner = await createProject(server.url);
    const stranger = await createProject(server.url);
    const domain = await verifiedDomain(owner, dns);

    for (const res of [
      await stranger.api.get(`/domains/${domain.id}`),
      await stranger.api.get(`/domains/${domain.id}/verify`),
      await stranger.api.delete(`/domains/${domain.id}`),
      await stranger.api.get(`/domains/project/${owner.id}`),
      await stranger.dashboard.get(`/domains/project/${owner.id}`),
    ]) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.body.error.code, 'NOT_FOUND');
    }
    assert.equal((await owner.api.get(`/domains/${domain.id}`)).body.status, 'verified', 'nothing changed');
    assert.equal((await stranger.api.get(`/domains/project/${stranger.id}`)).body.data.length, 0);

    assert.equal((await owner.api.get('/domains/not-a-uuid/verify')).status, 422);
    assert.equal((await owner.api.get('/domains/project/not-a-uuid')).status, 422);
    assert.equal((await owner.api.get('/domains/00000000-0000-4000-8000-000000000000/verify')).status, 404);
    assert.equal((await owner.publicApi.get(`/domains/project/${owner.id}`)).status, 401);
  });

  test('DELETE /domains/{id} answers 204, removes the domain and stops it being a sender', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    await assertSenderAllowed(server.deps.db, project.id, `news@${domain.domain}`);

    const res = await project.api.delete(`/domains/${domain.id}`);
    assert.equal(res.status, 204);
    assert.equal(res.text, '');
    assert.equal((await project.api.get(`/domains/${domain.id}`)).status, 404);
    assert.equal((await project.api.delete(`/domains/${domain.id}`)).status, 404);
    assert.deepEqual((await project.api.get(`/domains/project/${project.id}`)).body.data, []);
    await assert.rejects(assertSenderAllowed(server.deps.db, project.id, `news@${domain.domain}`), { code: 'SENDER_DOMAIN_NOT_VERIFIED' });
  });

  test('bad domain names are 422 VALIDATION_ERROR on the domain field', async () => {
    const project = await createProject(server.url);
    const bad = [
      'localhost',
      'https://example.com',
      'example.com/path',
      'example.com:25',
      'user@example.com',
      '192.168.1.10',
      '-bad.example.com',
      'bad-.example.com',
      'a..example.com',
      'exa mple.com',
      'under_score.example.com',
      `${'a'.repeat(64)}.example.com`,
      `${'abcdefghi.'.repeat(26)}com`,
      'example.c0m',
      '',
      '.',
    ];
    for (const domain of bad) {
      const res = await project.api.post('/domains', { domain });
      assert.equal(res.status, 422, `${JSON.stringify(domain)} → ${res.status}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.equal(res.body.error.errors[0].field, 'domain');
    }
    for (const body of [{}, { domain: 42 }, { domain: null }]) {
      const res = await project.api.post('/domains', body);
      assert.equal(res.status, 422);
      assert.equal(res.body.error.errors[0].code, 'invalid_type');
    }
    const idn = await project.api.post('/domains', { domain: 'bücher-mail.example' });
    assert.equal(idn.status, 201, idn.text);
    assert.equal(idn.body.domain, 'xn--bcher-mail-9db.example');
  });

  test('a DNS timeout keeps the status and does not fail the request; lastCheckedAt still moves', async () => {
    const project = await createProject(server.url);
    const verified = await verifiedDomain(project, dns);
    const pending = await project.api.post('/domains', { domain: uniqueDomain() });
    const verifiedName = `${verified.selector}._domainkey.${verified.domain}`;
    const first = await project.api.get(`/domains/${verified.id}`);

    dns.unresponsive(verifiedName);
    dns.unresponsive(dkimOf(pending.body).name);
    try {
      const [stillVerified, stillPending] = await Promise.all([project.api.get(`/domains/${verified.id}/verify`), project.api.get(`/domains/${pending.body.id}/verify`)]);
      assert.equal(stillVerified.status, 200, stillVerified.text);
      assert.equal(stillVerified.body.status, 'verified');
      assert.equal(stillVerified.body.verifiedAt, first.body.verifiedAt);
      assert.ok(Date.parse(stillVerified.body.lastCheckedAt) > Date.parse(first.body.lastCheckedAt));
      assert.equal(stillPending.status, 200);
      assert.equal(stillPending.body.status, 'pending');
      assert.ok(Date.parse(stillPending.body.lastCheckedAt) > 0);
    } finally {
      dns.unresponsive(verifiedName, false);
      dns.unresponsive(dkimOf(pending.body).name, false);
    }
  });

  test('assertSenderAllowed and signingKeyFor: the domain or a parent verified in this project, most specific key', async () => {
    const project = await createProject(server.url);
    const stranger = await createProject(server.url);
    const parent = await verifiedDomain(project, dns);
    const db = server.deps.db;

    await assertSenderAllowed(db, project.id, `hello@${parent.domain}`);
    await assertSenderAllowed(db, project.id, `hello@News.Deep.${parent.domain.toUpperCase()}`);
    await assert.rejects(assertSenderAllowed(db, stranger.id, `hello@${parent.domain}`), (error: any) => {
      assert.equal(error.statusCode, 403);
      assert.equal(error.code, 'SENDER_DOMAIN_NOT_VERIFIED');
      assert.match(error.message, new RegExp(parent.domain.replaceAll('.', '\\.')));
      assert.match(error.suggestion, /POST \/domains/);
      return true;
    });
    await assert.rejects(assertSenderAllowed(db, project.id, `hello@x${parent.domain}`), { code: 'SENDER_DOMAIN_NOT_VERIFIED' });
    await assert.rejects(assertSenderAllowed(db, project.id, 'not-an-address'), { code: 'SENDER_DOMAIN_NOT_VERIFIED' });
    const pending = await project.api.post('/domains', { domain: uniqueDomain() });
    await assert.rejects(assertSenderAllowed(db, project.id, `hello@${pending.body.domain}`), { code: 'SENDER_DOMAIN_NOT_VERIFIED' });

    assert.deepEqual(
      { ...(await signingKeyFor(db, project.id, `a@sub.${parent.domain}`)), privateKey: undefined, checks: undefined },
      { domainName: parent.domain, selector: parent.selector, privateKey: undefined, checks: undefined },
    );
    const child = await verifiedDomain(project, dns, `sub.${parent.domain}`);
    const key = await signingKeyFor(db, project.id, `a@deeper.sub.${parent.domain}`);
    assert.equal(key?.domainName, child.domain);
    assert.equal(key?.selector, child.selector);
    assert.match(key!.privateKey, /^-----BEGIN PRIVATE KEY-----/);
    assert.equal(await signingKeyFor(db, stranger.id, `a@${parent.domain}`), undefined);
  });

  test('a message signed with the stored key verifies with mailauth against the published record', async () => {
    const project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    const key = await signingKeyFor(server.deps.db, project.id, `hello@${domain.domain}`);
    assert.ok(key);

    const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, dkim: { ...key, keySelector: key.selector } });
    const info = await transport.sendMail({ from: `Hello <hello@${domain.domain}>`, to: 'someone@example.org', subject: 'Signed', text: 'Hi there.' });
    const message = info.message as Buffer;

    const resolver = new Resolver({ timeout: 5000, tries: 1 });
    resolver.setServers([dns.address]);
    const resolve = (name: string, type: string) => {
      assert.equal(type, 'TXT');
      return resolver.resolveTxt(name);
    };
    const result = await dkimVerify(message, { resolver: resolve as never, minBitLength: 2048 });
    const signature = result.results[0] as any;
    assert.equal(signature.status.result, 'pass', JSON.stringify(signature.status));
    assert.equal(signature.signingDomain, domain.domain);
    assert.equal(signature.selector, domain.selector);

    // And it fails once the published key is another one: the check is real.
    const other = await project.api.post('/domains', { domain: uniqueDomain() });
    dns.set(`${domain.selector}._domainkey.${domain.domain}`, 'TXT', [dkimOf(other.body).value]);
    const broken = await dkimVerify(message, { resolver: resolve as never });
    assert.notEqual((broken.results[0] as any).status.result, 'pass');
  });
});

describe('DNS_SERVERS that never answer', () => {
  let silent: Socket;
  let server: TestServer;
  before(async () => {
    // A bound UDP socket that reads nothing back: every lookup times out.
    silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    server = await startTestServer({ DNS_SERVERS: `127.0.0.1:${silent.address().port}` });
  });
  after(async () => {
    await server.close();
    silent.close();
  });

  test('verify answers 200 within the 5 s lookup timeout, keeps the domain pending and records lastCheckedAt', async () => {
    const project = await createProject(server.url);
    const created = await project.api.post('/domains', { domain: uniqueDomain() });
    const started = Date.now();
    const res = await project.api.get(`/domains/${created.body.id}/verify`);
    assert.ok(Date.now() - started < 8000, `took ${Date.now() - started} ms`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.status, 'pending');
    assert.ok(Date.parse(res.body.lastCheckedAt) > 0);
  });
});

test('a DNS_SERVERS host name is resolved to the address setServers needs; an unknown one is a clear error', async () => {
  assert.equal(await toServerAddress('127.0.0.1:5353'), '127.0.0.1:5353');
  assert.equal(await toServerAddress('[::1]:5353'), '[::1]:5353');
  assert.equal(await toServerAddress('::1'), '::1');
  assert.match(await toServerAddress('localhost:5353'), /^(127\.0\.0\.1|\[::1\]):5353$/);
  await assert.rejects(toServerAddress('no-such-host.invalid:53'), /DNS_SERVERS: cannot resolve the DNS server name "no-such-host\.invalid"/);
});
