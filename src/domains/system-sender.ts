import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/index.ts';
import type { DnsRecord } from './domains.schemas.ts';
import { findSystemKey, keepSystemKey } from './domains.queries.ts';
import { newDkimKey } from './domains.service.ts';
import { domainRecords } from './records.ts';

/** The sender of the server's own mail (address verification, password reset: contract §6). */
export type SystemSender = {
  address: string;
  name: string;
  /** Its domain's DKIM key; undefined when SYSTEM_FROM is unset (the mail then goes out unsigned). */
  key: { domainName: string; selector: string; privateKey: string } | undefined;
  /** The DNS records to publish for its domain (DKIM first), as a Domain's are. Empty when unsigned. */
  records: Array<Omit<DnsRecord, 'state' | 'found' | 'priority'> & { type: 'TXT' }>;
};

/** Without SYSTEM_FROM: no-reply at PUBLIC_URL's host, unsigned. */
export const unsignedSystemSender = (config: Config): SystemSender => ({
  address: `no-reply@${new URL(config.publicUrl).hostname}`,
  name: 'Mailroom',
  key: undefined,
  records: [],
});

/**
 * At start-up: SYSTEM_FROM's domain gets its DKIM key, made once and kept in the database, so every
 * process and every restart signs with the same key and the published record stays right. The
 * records are logged.
 */
export async function prepareSystemSender(db: Queryable, config: Config, log: Logger): Promise<SystemSender> {
  if (!config.systemFrom) return unsignedSystemSender(config);
  const { address, name, domain } = config.systemFrom;
  let kept = await findSystemKey(db, domain);
  if (!kept) {
    const fresh = await newDkimKey();
    kept = await keepSystemKey(db, { domain, selector: fresh.selector, public_key: fresh.publicKey, private_key: fresh.privateKey });
  }
  const records = domainRecords({ domain, selector: kept.selector, public_key: kept.public_key, record_checks: null }, config.spfMechanisms).map(
    // Its own three TXT records: the return path is for project domains.
    ({ state: _state, found: _found, priority: _priority, ...record }) => ({ ...record, type: 'TXT' as const }),
  );
  log.info({ systemFrom: address, records: records.map(({ type, name, value }) => ({ type, name, value })) }, 'SYSTEM_FROM: publish these DNS records so the server’s own mail verifies');
  return { address, name, key: { domainName: domain, selector: kept.selector, privateKey: kept.private_key }, records };
}
