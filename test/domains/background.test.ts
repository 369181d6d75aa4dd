import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createProject, type TestProject } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { publishRecords, uniqueDomain } from '../kit/domains.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/** Polls the project's domain list (never /verify) until `done` holds; bounded. */
async function waitForDomain(project: TestProject, id: string, done: (domain: any) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const res = await project.api.get(`/domains/project/${project.id}`);
    last = res.body.data.find((domain: { id: string }) => domain.id === id);
    if (last && done(last)) return last;
    await sleep(200);
  }
  assert.fail(`domain did not reach the expected state in ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

describe('background re-check of domains (DOMAIN_CHECK_INTERVAL_SECONDS)', () => {
  let dns: DnsServer;
  let server: TestServer;
  before(async () => {
    dns = await startDnsServer();
    server = await startTestServer({ DNS_SERVERS: dns.address, DOMAIN_CHECK_INTERVAL_SECONDS: '1' });
  });
  after(async () => {
    await server.close();
    await dns.close();
  });

  test('a published domain verifies on its own, and goes back to pending when its record goes', async () => {
    const project = await createProject(server.url);
    const created = await project.api.post('/domains', { domain: uniqueDomain() });
    assert.equal(created.status, 201);

    const checked = await waitForDomain(project, created.body.id, (domain) => domain.lastCheckedAt !== null);
    assert.equal(checked.status, 'pending', 'checked while nothing is published');

    publishRecords(dns, created.body);
    const verified = await waitForDomain(project, created.body.id, (domain) => domain.status === 'verified');
    assert.ok(Date.parse(verified.verifiedAt) > 0);

    dns.remove(created.body.records[0].name);
    const pending = await waitForDomain(project, created.body.id, (domain) => domain.status === 'pending');
    assert.equal(pending.verifiedAt, null);
  });

  test('the checks are paced: one lookup per domain per interval, not a stream of them', async () => {
    const project = await createProject(server.url);
    const created = await project.api.post('/domains', { domain: uniqueDomain() });
    publishRecords(dns, created.body);
    await waitForDomain(project, created.body.id, (domain) => domain.status === 'verified');

    const name = created.body.records[0].name;
    const count = () => dns.queries.filter((query) => query.name === name).length;
    const start = count();
    await sleep(4000);
    const lookups = count() - start;
    // Every ~1 s (plus the queue's polling), at most one per half interval: never a burst.
    assert.ok(lookups >= 1 && lookups <= 8, `${lookups} lookups in 4 s`);
  });
});
