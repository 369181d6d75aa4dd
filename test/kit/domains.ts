import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createProject, type TestProject } from './accounts.ts';
import type { DnsServer } from './dns.ts';

export type VerifiedDomain = { id: string; domain: string; selector: string; publicKey: string };

/** A unique domain name under the reserved .test TLD (RFC 2606). */
export const uniqueDomain = (label = 'mail') => `${label}-${randomBytes(5).toString('hex')}.example.test`;

/** The TXT values to publish for a Domain response's records (only the required ones by default). */
export function publishRecords(dns: DnsServer, domain: { records: Array<{ type: string; name: string; value: string; required: boolean }> }, all = false) {
  for (const record of domain.records) if (record.required || all) dns.set(record.name, 'TXT', [record.value]);
}

/**
 * A sender domain verified in `project`: created over HTTP, its required records published in the
 * test DNS server (which the server under test must use: startTestServer({ DNS_SERVERS: dns.address })),
 * then verified with GET /domains/{id}/verify. Use an address `…@<domain>` (or a subdomain) as `from`.
 */
export async function verifiedDomain(project: TestProject, dns: DnsServer, domain: string = uniqueDomain()): Promise<VerifiedDomain> {
  const created = await project.api.post('/domains', { domain });
  assert.equal(created.status, 201, created.text);
  publishRecords(dns, created.body);
  const checked = await project.api.get(`/domains/${created.body.id}/verify`);
  assert.equal(checked.status, 200, checked.text);
  assert.equal(checked.body.status, 'verified', `domain ${domain} did not verify: ${checked.text}`);
  const dkim = created.body.records.find((record: { name: string }) => record.name.includes('._domainkey.'));
  return {
    id: created.body.id,
    domain: created.body.domain,
    selector: dkim.name.split('._domainkey.')[0],
    publicKey: /p=([A-Za-z0-9+/=]+)/.exec(dkim.value)![1]!,
  };
}

/** A new project with a verified sender domain, and an address on that domain to send from. */
export async function projectWithSender(baseUrl: string, dns: DnsServer, localPart = 'hello'): Promise<{ project: TestProject; from: string }> {
  const project = await createProject(baseUrl);
  return { project, from: `${localPart}@${(await verifiedDomain(project, dns)).domain}` };
}
