import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { mergeSpf } from '../../src/domains/records.ts';
import { createProject, type TestProject } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { uniqueDomain } from '../kit/domains.ts';
import { client } from '../kit/http.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

type DnsRecord = { type: string; name: string; value: string; required: boolean; note?: string; state: string; found: string[] };
const byKind = (domain: { records: DnsRecord[] }) => {
  const [dkim, spf, dmarc] = domain.records;
  return { dkim: dkim!, spf: spf!, dmarc: dmarc! };
};

describe('SPF advice (RFC 7208: one record per domain)', () => {
  test('the relay’s mechanisms are merged into an existing record, before its all, without duplicates', () => {
    const ours = ['ip4:203.0.113.7', 'include:relay.example.net'];
    assert.equal(mergeSpf([], ours), 'v=spf1 ip4:203.0.113.7 include:relay.example.net ~all');
    assert.equal(mergeSpf([], []), 'v=spf1 ~all');
    assert.equal(mergeSpf(['v=spf1 include:_spf.google.com -all'], ours), 'v=spf1 include:_spf.google.com ip4:203.0.113.7 include:relay.example.net -all');
    assert.equal(mergeSpf(['v=spf1 +ip4:203.0.113.7 mx ?all'], ours), 'v=spf1 +ip4:203.0.113.7 mx include:relay.example.net ?all');
    assert.equal(mergeSpf(['v=spf1 a redirect=_spf.example.org'], ours), 'v=spf1 a ip4:203.0.113.7 include:relay.example.net redirect=_spf.example.org');
    // Two records (a permanent error for receivers) become one.
    assert.equal(mergeSpf(['v=spf1 mx -all', 'v=spf1 include:mailgun.org ~all'], ours), 'v=spf1 mx include:mailgun.org ip4:203.0.113.7 include:relay.example.net -all');
  });
});

describe('a domain’s records and their states (docs/decisions/domains.md; SPF_MECHANISMS, docs/architecture.md)', () => {
  let dns: DnsServer;
  let server: TestServer;
  let project: TestProject;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns({ SPF_MECHANISMS: 'ip4:127.0.0.1, include:relay.example.test' }));
    project = await createProject(server.url);
  });
  after(() => server.close());

  test('POST /domains returns SPF authorizing the relay; nothing is checked yet', async () => {
    const created = await project.api.post('/domains', { domain: uniqueDomain() });
    assert.equal(created.status, 201, created.text);
    const { dkim, spf, dmarc } = byKind(created.body);
    assert.equal(spf.value, 'v=spf1 ip4:127.0.0.1 include:relay.example.test ~all');
    assert.doesNotMatch(spf.note!, /not configured/);
    for (const record of [dkim, spf, dmarc]) assert.deepEqual({ state: record.state, found: record.found }, { state: 'not_checked', found: [] });
    // The new fields are in the published schema.
    const openapi = await client(server.url).get('/openapi.json');
    assert.match(JSON.stringify(openapi.body), /wrong_value/);
  });

  test('the check fills each record’s state: missing, then wrong value with what was found, then found', async () => {
    const created = await project.api.post('/domains', { domain: uniqueDomain() });
    const { dkim, spf, dmarc } = byKind(created.body);
    const verify = async () => {
      const res = await project.api.get(`/domains/${created.body.id}/verify`);
      assert.equal(res.status, 200, res.text);
      return res.body;
    };

    let checked = await verify();
    assert.equal(checked.status, 'pending');
    for (const record of checked.records) assert.deepEqual({ name: record.name, state: record.state, found: record.found }, { name: record.name, state: 'missing', found: [] });

    // Something else is published at each name: a stale key, the domain's own SPF, its DMARC policy.
    dns.set(dkim.name, 'TXT', ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAstale']);
    dns.set(spf.name, 'TXT', ['google-site-verification=abc123', 'v=spf1 include:_spf.google.com -all']);
    dns.set(dmarc.name, 'TXT', ['v=DMARC1; p=reject; rua=mailto:dmarc@example.test']);
    checked = await verify();
    let records = byKind(checked);
    assert.equal(checked.status, 'pending');
    assert.deepEqual(
      { state: records.dkim.state, found: records.dkim.found, value: records.dkim.value },
      { state: 'wrong_value', found: ['v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAstale'], value: dkim.value },
    );
    assert.deepEqual({ state: records.spf.state, found: records.spf.found }, { state: 'wrong_value', found: ['v=spf1 include:_spf.google.com -all'] });
    assert.equal(records.spf.value, 'v=spf1 include:_spf.google.com ip4:127.0.0.1 include:relay.example.test -all');
    // An existing DMARC policy is kept, not downgraded to p=none.
    assert.deepEqual({ state: records.dmarc.state, value: records.dmarc.value }, { state: 'found', value: 'v=DMARC1; p=reject; rua=mailto:dmarc@example.test' });

    // Published as advised: every record found, and the domain verified.
    dns.set(dkim.name, 'TXT', [dkim.value]);
    dns.set(spf.name, 'TXT', ['google-site-verification=abc123', records.spf.value]);
    checked = await verify();
    records = byKind(checked);
    assert.equal(checked.status, 'verified');
    assert.deepEqual([records.dkim.state, records.spf.state, records.dmarc.state], ['found', 'found', 'found']);
    assert.equal(records.spf.value, 'v=spf1 include:_spf.google.com ip4:127.0.0.1 include:relay.example.test -all');

    // Two SPF records are an error for receivers: wrong value, with one merged record as advice.
    dns.set(spf.name, 'TXT', ['v=spf1 ip4:127.0.0.1 include:relay.example.test ~all', 'v=spf1 include:mailgun.org ~all']);
    records = byKind(await verify());
    assert.equal(records.spf.state, 'wrong_value');
    assert.equal(records.spf.found.length, 2);
    assert.equal(records.spf.value, 'v=spf1 ip4:127.0.0.1 include:relay.example.test include:mailgun.org ~all');

    // A lookup that gets no answer keeps the last answer (docs/decisions/domains.md: a timeout is not a failure).
    dns.unresponsive(spf.name);
    records = byKind(await verify());
    dns.unresponsive(spf.name, false);
    assert.equal(records.spf.state, 'wrong_value');
    assert.equal(records.spf.found.length, 2);
    assert.equal(records.dkim.state, 'found');
  });
});

describe('SPF without SPF_MECHANISMS (docs/architecture.md)', () => {
  let server: TestServer;
  before(async () => {
    ({ server } = await startTestServerWithDns());
  });
  after(() => server.close());

  test('the SPF record is returned with a note that it authorizes no relay yet', async () => {
    const project = await createProject(server.url);
    const created = await project.api.post('/domains', { domain: uniqueDomain() });
    const { spf } = byKind(created.body);
    assert.equal(spf.value, 'v=spf1 ~all');
    assert.match(spf.note!, /SPF_MECHANISMS is not configured.*authorizes no relay yet/);
  });
});
