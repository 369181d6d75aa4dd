import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/index.ts';
import type { SystemSender } from '../deps.ts';
import { findSystemKey, keepSystemKey } from './domains.queries.ts';
import { newDkimKey } from './domains.service.ts';
import { domainRecords } from './records.ts';

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
  log.info(
    { systemFrom: address, records: records.map(({ type, name, value }) => ({ type, name, value })) },
    'SYSTEM_FROM: publish these DNS records so the server’s own mail verifies',
  );
  return { address, name, key: { domainName: domain, selector: kept.selector, privateKey: kept.private_key }, records };
}
