import type { Resolver } from 'node:dns/promises';
import type { Config } from '../config.ts';
import { createResolver } from '../dns/resolver.ts';

/**
 * What a TXT lookup found. `absent` means the DNS answered that there is no such record (NXDOMAIN or
 * no TXT at the name); `unavailable` means we could not learn the answer (timeout, SERVFAIL, refused,
 * unreachable server): docs/decisions/domains.md says that is not a failure of the record.
 */
export type TxtLookup = { status: 'found'; records: string[] } | { status: 'absent' } | { status: 'unavailable'; reason: string };

export interface TxtResolver {
  /** Each TXT record at `name`, its character-strings joined (RFC 7208 §3.3, RFC 6376 §3.6.2.2). */
  txt(name: string): Promise<TxtLookup>;
  /** The MX exchanges at `name` (the bounce subdomain, docs/smtp.md), in the same shape. */
  mx(name: string): Promise<TxtLookup>;
}

// docs/decisions/domains.md: lookups time out after 5 seconds, and one try is one timeout.
const ABSENT_CODES = new Set(['ENODATA', 'ENOTFOUND']);

/**
 * The resolver for a process: DNS_SERVERS when set (docs/architecture.md), else the system's. One per
 * config, so c-ares keeps its server latency statistics across lookups.
 */
const resolvers = new WeakMap<Config, TxtResolver>();
export function dnsFor(config: Config): TxtResolver {
  let resolver = resolvers.get(config);
  if (!resolver) {
    resolver = createTxtResolver(config.dnsServers);
    resolvers.set(config, resolver);
  }
  return resolver;
}

export function createTxtResolver(servers: readonly string[]): TxtResolver {
  let ready: Promise<Resolver> | undefined;
  const resolverReady = () =>
    (ready ??= createResolver(servers).catch((error) => {
      ready = undefined; // a name that failed to resolve is tried again at the next lookup
      throw error;
    }));

  const lookup = async (query: (resolver: Resolver) => Promise<string[]>): Promise<TxtLookup> => {
    let resolver: Resolver;
    try {
      resolver = await resolverReady();
    } catch (error) {
      return { status: 'unavailable', reason: (error as Error).message };
    }
    try {
      return { status: 'found', records: await query(resolver) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
      return ABSENT_CODES.has(code) ? { status: 'absent' } : { status: 'unavailable', reason: code };
    }
  };
  return {
    txt: (name) => lookup(async (resolver) => (await resolver.resolveTxt(name)).map((strings) => strings.join(''))),
    mx: (name) => lookup(async (resolver) => (await resolver.resolveMx(name)).map((record) => record.exchange)),
  };
}
