import type { Resolver } from 'node:dns/promises';
import { LruCache } from '../rendering/lru.ts';

/** The receiving providers throttled apart (docs/streams.md); `other` is every other receiver. */
export const PROVIDERS = ['gmail', 'microsoft', 'yahoo', 'apple', 'other'] as const;
export type Provider = (typeof PROVIDERS)[number];

// MX host suffixes of each provider's receiving servers (their own domains and the hosted ones:
// Google Workspace and Microsoft 365 customers' domains point at the same hosts).
const MX_SUFFIXES: Array<[Provider, string[]]> = [
  ['gmail', ['google.com', 'googlemail.com']],
  ['microsoft', ['outlook.com', 'hotmail.com', 'protection.outlook.com', 'olc.protection.outlook.com']],
  ['yahoo', ['yahoodns.net', 'yahoo.com', 'aol.com']],
  ['apple', ['icloud.com', 'me.com', 'mac.com']],
];

/** The provider whose servers the MX hosts (most preferred first) name; `other` when none does. */
export function providerOfMx(hosts: string[]): Provider {
  for (const host of hosts) {
    const name = host.toLowerCase().replace(/\.$/, '');
    for (const [provider, suffixes] of MX_SUFFIXES) if (suffixes.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) return provider;
  }
  return 'other';
}

const SPECIAL_USE = /(^|\.)(test|invalid|localhost|example)$/;
/** A chunk's delivery never waits longer than this on DNS for its providers. */
const LOOKUP_TIMEOUT_MS = 1_000;

const withTimeout = <T>(work: Promise<T>, ms: number): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('MX lookup timed out'), { code: 'ETIMEOUT' })), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
};

/** How long a domain's provider is kept: MX records of mailbox providers rarely change. */
const CACHE_MS = 60 * 60 * 1000;
/** A failed lookup is kept shorter: `other` until the DNS answers again. */
const FAILED_CACHE_MS = 60 * 1000;

/**
 * The provider of recipient domains, from their MX records (DNS_SERVERS), cached per process for
 * an hour. A domain whose lookup fails counts as `other` for a minute: a throttle never waits on DNS.
 */
export class ProviderLookup {
  private readonly cache = new LruCache<string, { provider: Provider; until: number }>(100_000, 100_000);
  constructor(private readonly resolver: () => Promise<Resolver>) {}

  async of(address: string): Promise<Provider> {
    const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    // RFC 6761 special-use names have no public MX to look up.
    if (SPECIAL_USE.test(domain)) return 'other';
    const cached = this.cache.get(domain);
    if (cached && cached.until > Date.now()) return cached.provider;
    let provider: Provider = 'other';
    let keep = CACHE_MS;
    try {
      const records = await withTimeout((await this.resolver()).resolveMx(domain), LOOKUP_TIMEOUT_MS);
      provider = providerOfMx(records.sort((a, b) => a.priority - b.priority).map((record) => record.exchange));
    } catch (error) {
      // No MX or no such domain is an answer; anything else (a timeout) is asked again soon.
      const code = (error as { code?: string }).code;
      if (code !== 'ENODATA' && code !== 'ENOTFOUND') keep = FAILED_CACHE_MS;
    }
    this.cache.set(domain, { provider, until: Date.now() + keep });
    return provider;
  }
}
