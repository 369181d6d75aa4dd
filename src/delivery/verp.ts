import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config.ts';
import { bounceDomain, bounceMxPublished, type RecordChecks } from '../domains/records.ts';

// b-<record id, 32 hex>-<signature, 16 hex>: 51 characters, under RFC 5321's 64 for a local part,
// and in lower case only, so a relay that changes the case of the address cannot break it.
const VERP = /^b-([0-9a-f]{32})-([0-9a-f]{16})@bounces\.(.+)$/;

const signature = (secret: string, emailId: string, domain: string) => createHmac('sha256', secret).update(`verp ${emailId} ${domain}`).digest('hex').slice(0, 16);

/** The signed VERP return path naming an email record, at the bounce subdomain of its domain (docs/smtp.md). */
export function verpAddress(secret: string, emailId: string, domain: string): string {
  const hex = emailId.replaceAll('-', '').toLowerCase();
  return `b-${hex}-${signature(secret, hex, domain.toLowerCase())}@${bounceDomain(domain.toLowerCase())}`;
}

/** The record and domain a VERP address names, when its signature holds; undefined for any other address. */
export function parseVerp(secret: string, address: string): { emailId: string; domain: string } | undefined {
  const match = VERP.exec(address.toLowerCase());
  if (!match) return undefined;
  const [, hex, given, domain] = match as unknown as [string, string, string, string];
  const expected = Buffer.from(signature(secret, hex, domain));
  if (!timingSafeEqual(expected, Buffer.from(given))) return undefined;
  const emailId = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  return { emailId, domain };
}

/**
 * The envelope sender of a record: its VERP address once this server receives bounces
 * (SMTP_INBOUND_PORT) and the domain's bounce MX points here; else the From address.
 */
export function returnPathFor(config: Config, row: { id: string; from_address: string }, key: { domainName: string; checks: RecordChecks | null }): string {
  if (config.smtp.inboundPort === undefined || !bounceMxPublished(key.checks, config.smtp.hostname)) return row.from_address;
  return verpAddress(config.sessionSecret, row.id, key.domainName);
}
