import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { client } from '../kit/http.ts';
import { startTestServer, startTestServerWithDns, type TestServer } from '../kit/server.ts';

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}.test`;

/** A mail domain as a hosting provider publishes it: NS, MX and a website. */
function publish(dns: DnsServer, domain: string, records: { mx?: boolean; a?: boolean } = {}) {
  dns.set(domain, 'NS', [`ns1.${domain}`]);
  if (records.mx ?? true) dns.set(domain, 'MX', [{ exchange: `mx.${domain}`, priority: 10 }]);
  if (records.a ?? true) dns.set(domain, 'A', ['192.0.2.10']);
}

describe('POST /v1/verify', () => {
  let server: TestServer;
  let dns: DnsServer;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
  });
  after(() => server.close());

  const verify = async (email: unknown) => {
    const project = await createProject(server.url);
    return project.api.post('/v1/verify', { email });
  };

  test('a deliverable address: the domain exists with MX and A records', async () => {
    const domain = unique('good');
    publish(dns, domain);
    const res = await verify(`jane@${domain}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      success: true,
      data: {
        email: `jane@${domain}`,
        valid: true,
        isDisposable: false,
        isAlias: false,
        isTypo: false,
        isPlusAddressed: false,
        isPersonalEmail: false,
        domainExists: true,
        hasWebsite: true,
        hasMxRecords: true,
        reasons: [],
      },
    });
  });

  test('a domain that does not exist (NXDOMAIN) stops the checks: invalid', async () => {
    const domain = unique('missing');
    const res = await verify(`jane@${domain}`);
    assert.equal(res.status, 200);
    const data = res.body.data;
    assert.equal(data.valid, false);
    assert.equal(data.domainExists, false);
    assert.equal(data.hasMxRecords, false);
    assert.equal(data.hasWebsite, false);
    assert.deepEqual(data.reasons, [`The domain ${domain} does not exist.`]);
    const lookedUp = dns.queries.filter((q) => q.name === domain).map((q) => q.type);
    assert.deepEqual(lookedUp, ['NS'], 'no MX or A lookup after NXDOMAIN');
  });

  test('a domain without MX records is invalid even with a website', async () => {
    const domain = unique('nomx');
    publish(dns, domain, { mx: false });
    const { body } = await verify(`jane@${domain}`);
    assert.equal(body.data.valid, false);
    assert.equal(body.data.domainExists, true);
    assert.equal(body.data.hasMxRecords, false);
    assert.equal(body.data.hasWebsite, true);
    assert.deepEqual(body.data.reasons, ['The domain has no MX records, so it cannot receive email.']);
  });

  test('a null MX (RFC 7505) means the domain accepts no email', async () => {
    const domain = unique('nullmx');
    publish(dns, domain, { mx: false });
    dns.set(domain, 'MX', [{ exchange: '', priority: 0 }]);
    const { body } = await verify(`jane@${domain}`);
    assert.equal(body.data.valid, false);
    assert.equal(body.data.hasMxRecords, false);
    assert.deepEqual(body.data.reasons, ['The domain publishes a null MX record, so it does not accept email.']);
  });

  test('a domain with MX but no A or AAAA records is valid without a website', async () => {
    const domain = unique('mailonly');
    publish(dns, domain, { a: false });
    const { body } = await verify(`jane@${domain}`);
    assert.equal(body.data.valid, true);
    assert.equal(body.data.hasWebsite, false);
    assert.deepEqual(body.data.reasons, []);
  });

  test('an IPv6-only website counts as a website', async () => {
    const domain = unique('v6');
    publish(dns, domain, { a: false });
    dns.set(domain, 'AAAA', ['2001:db8::10']);
    const { body } = await verify(`jane@${domain}`);
    assert.equal(body.data.hasWebsite, true);
  });

  test('a subdomain without NS records of its own exists when the DNS knows the name', async () => {
    const parent = unique('parent');
    publish(dns, parent);
    const domain = `mail.${parent}`;
    dns.set(domain, 'MX', [{ exchange: `mx.${parent}`, priority: 10 }]);
    const { body } = await verify(`jane@${domain}`);
    assert.equal(body.data.domainExists, true);
    assert.equal(body.data.hasMxRecords, true);
    assert.equal(body.data.valid, true);
  });

  test('plus addressing is flagged with a reason but stays valid', async () => {
    const domain = unique('plus');
    publish(dns, domain);
    const { body } = await verify(`jane+news@${domain}`);
    assert.equal(body.data.isPlusAddressed, true);
    assert.equal(body.data.valid, true);
    assert.deepEqual(body.data.reasons, [`The address uses plus addressing: mail to it reaches the mailbox of jane@${domain}.`]);
  });

  test('a disposable domain is flagged, not personal, and still valid when its DNS is good', async () => {
    publish(dns, 'mailinator.com');
    const { body } = await verify('someone@mailinator.com');
    assert.equal(body.data.isDisposable, true);
    assert.equal(body.data.isPersonalEmail, false);
    assert.equal(body.data.valid, true);
    assert.deepEqual(body.data.reasons, ['mailinator.com is a disposable email provider.']);
  });

  test('forwarding aliases: Apple private relay, DuckDuckGo, Firefox Relay', async () => {
    for (const domain of ['privaterelay.appleid.com', 'duck.com', 'mozmail.com']) {
      publish(dns, domain);
      const { body } = await verify(`abc123@${domain}`);
      assert.equal(body.data.isAlias, true, domain);
      assert.equal(body.data.isPersonalEmail, false, domain);
      assert.equal(body.data.valid, true, domain);
      assert.equal(body.data.reasons.length, 1, domain);
      assert.match(body.data.reasons[0], new RegExp(`^${domain.replaceAll('.', '\\.')} is an email forwarding service`));
    }
  });

  test('a personal provider is flagged', async () => {
    publish(dns, 'gmail.com');
    const { body } = await verify('jane.doe@gmail.com');
    assert.equal(body.data.isPersonalEmail, true);
    assert.equal(body.data.isTypo, false);
    assert.equal(body.data.valid, true);
    assert.equal('suggestedEmail' in body.data, false);
    assert.deepEqual(body.data.reasons, ['gmail.com is a free personal email provider.']);
  });

  test('a typo of a well-known domain suggests the corrected address', async () => {
    const { body } = await verify('Jane@gmial.com');
    assert.equal(body.data.isTypo, true);
    assert.equal(body.data.suggestedEmail, 'Jane@gmail.com');
    assert.ok(body.data.reasons.includes('The domain gmial.com looks like a typo of gmail.com: did you mean Jane@gmail.com?'));
    assert.equal(body.data.valid, false, 'gmial.com does not exist on this DNS');

    const tld = await verify('jane@example.con');
    assert.equal(tld.body.data.isTypo, true);
    assert.equal(tld.body.data.suggestedEmail, 'jane@example.com');
  });

  test('malformed syntax is a 200 with valid false and the reason; no DNS lookup', async () => {
    for (const [email, reason] of [
      ['jane..doe@example.com', /two dots in a row/],
      ['no-at-sign.example.com', /no @/],
      [`${'x'.repeat(65)}@example.com`, /at most 64/],
      ['jane@-bad-.com', /hyphen/],
      ['', /empty/],
    ] as const) {
      const res = await verify(email);
      assert.equal(res.status, 200, email);
      assert.equal(res.body.data.email, email);
      assert.equal(res.body.data.valid, false);
      for (const flag of ['isDisposable', 'isAlias', 'isTypo', 'isPlusAddressed', 'isPersonalEmail', 'domainExists', 'hasWebsite', 'hasMxRecords']) {
        assert.equal(res.body.data[flag], false, `${flag} for ${email}`);
      }
      assert.equal(res.body.data.reasons.length, 1);
      assert.match(res.body.data.reasons[0], reason);
    }
    assert.equal(dns.queries.filter((q) => q.name.endsWith('bad-.com')).length, 0);
  });

  test('a missing or non-string email is a 422 validation error', async () => {
    const project = await createProject(server.url);
    for (const body of [{}, { email: 42 }, { email: null }, { email: ['a@b.com'] }]) {
      const res = await project.api.post('/v1/verify', body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.deepEqual(
        res.body.error.errors.map((e: any) => [e.field, e.code]),
        [['email', 'invalid_type']],
      );
    }
  });

  test('only the secret key is accepted', async () => {
    const project = await createProject(server.url);
    const publicKey = await project.publicApi.post('/v1/verify', { email: 'jane@example.com' });
    assert.equal(publicKey.status, 401);
    assert.equal(publicKey.body.error.code, 'INVALID_API_KEY');
    const none = await client(server.url).post('/v1/verify', { email: 'jane@example.com' });
    assert.equal(none.status, 401);
    assert.equal(none.body.error.code, 'INVALID_API_KEY');
    const session = await project.dashboard.post('/v1/verify', { email: 'jane@example.com' });
    assert.equal(session.status, 401);
    assert.equal(session.body.error.code, 'INVALID_API_KEY');
  });

  test('DNS answers are cached: a second check of the domain asks the DNS nothing', async () => {
    const domain = unique('cached');
    publish(dns, domain);
    const project = await createProject(server.url);
    const first = await project.api.post('/v1/verify', { email: `a@${domain}` });
    const asked = dns.queries.filter((q) => q.name === domain).length;
    assert.equal(asked, 4, 'NS, MX, A and AAAA');
    dns.remove(domain);
    const second = await project.api.post('/v1/verify', { email: `b@${domain}` });
    assert.equal(dns.queries.filter((q) => q.name === domain).length, asked);
    assert.equal(second.body.data.valid, first.body.data.valid);
    assert.equal(second.body.data.hasWebsite, true);
  });
});

describe('POST /v1/verify when the DNS server never answers', () => {
  let server: TestServer;
  const silent = createSocket('udp4');
  before(async () => {
    silent.on('message', () => {}); // swallows every query
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    server = await startTestServer({ DNS_SERVERS: `127.0.0.1:${silent.address().port}` });
  });
  after(async () => {
    await server.close();
    silent.close();
  });

  test('answers within about 6 s: invalid, with a "could not be checked" reason', async () => {
    const project = await createProject(server.url);
    const started = Date.now();
    const res = await project.api.post('/v1/verify', { email: 'jane@example.com' });
    const elapsed = Date.now() - started;
    assert.equal(res.status, 200);
    assert.ok(elapsed < 6500, `took ${elapsed} ms`);
    assert.equal(res.body.data.valid, false);
    assert.equal(res.body.data.domainExists, false);
    assert.equal(res.body.data.hasMxRecords, false);
    assert.deepEqual(res.body.data.reasons, ['The domain example.com could not be checked: the DNS lookup timed out. Try again later.']);
  });
});
