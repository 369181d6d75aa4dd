import type { Resolver } from 'node:dns/promises';
import { createResolver, DNS_TIMEOUT_MS } from '../dns/resolver.ts';

/** The DNS lookups of /v1/verify (docs/decisions/verify.md steps 7–9), cached for their TTL. */

export type RecordKind = 'NS' | 'MX' | 'A' | 'AAAA';
export type MxRecord = { exchange: string; priority: number };

/**
 * `found`: the records. `absent`: the DNS answered that there are none; `nxdomain` tells NXDOMAIN
 * (the name does not exist) from NODATA (the name exists without records of this type, RFC 2308).
 * `unavailable`: no answer could be had (timeout, SERVFAIL, refused), which says nothing either way.
 */
export type Answer<T> = { status: 'found'; records: T[] } | { status: 'absent'; nxdomain: boolean } | { status: 'unavailable'; code: string };

export interface MailDns {
  ns(domain: string): Promise<Answer<string>>;
  mx(domain: string): Promise<Answer<MxRecord>>;
  a(domain: string): Promise<Answer<string>>;
  aaaa(domain: string): Promise<Answer<string>>;
  /** Cancels lookups in flight (server shutdown). */
  close(): void;
}

// docs/decisions/domains.md: a lookup times out after 5 seconds, one try. c-ares can take longer than its own
// timeout for the first query to a silent server (about 6 s here), so a deadline of our own bounds it.
// resolveNs/resolveMx do not report TTLs; their answers are kept this long.
const DEFAULT_TTL_SECONDS = 60;
const MAX_TTL_SECONDS = 3600;
// RFC 2308 keys negative caching to the zone's SOA minimum, which these calls do not return.
const NEGATIVE_TTL_SECONDS = 30;
const MAX_ENTRIES = 10_000;

type Cached = { expires: number; answer: Answer<unknown> };

/** `DNS_SERVERS` (docs/architecture.md) or, when empty, the system's resolvers. */
export function createMailDns(servers: readonly string[], options: { maxEntries?: number } = {}): MailDns {
  const maxEntries = options.maxEntries ?? MAX_ENTRIES;
  // A Map iterates in insertion order: re-inserting on a hit keeps the least recently used first.
  const cache = new Map<string, Cached>();
  const inFlight = new Map<string, Promise<Answer<unknown>>>();
  let resolver: Promise<Resolver> | undefined;

  const ready = () =>
    (resolver ??= createResolver(servers).catch((error) => {
      resolver = undefined; // a DNS server name that did not resolve is tried again next time
      throw error;
    }));

  function remember(key: string, answer: Answer<unknown>, ttlSeconds: number) {
    if (answer.status === 'unavailable' || ttlSeconds <= 0) return;
    cache.delete(key);
    cache.set(key, { expires: Date.now() + ttlSeconds * 1000, answer });
    if (cache.size > maxEntries) cache.delete(cache.keys().next().value!);
  }

  async function query(kind: RecordKind, name: string): Promise<Answer<unknown>> {
    const key = `${kind} ${name}`;
    const hit = cache.get(key);
    if (hit && hit.expires > Date.now()) {
      cache.delete(key);
      cache.set(key, hit);
      return hit.answer;
    }
    let pending = inFlight.get(key);
    if (!pending) {
      pending = resolve(kind, name).then(({ answer, ttl }) => {
        remember(key, answer, ttl);
        return answer;
      });
      pending.finally(() => inFlight.delete(key)).catch(() => {});
      inFlight.set(key, pending);
    }
    return pending;
  }

  async function resolve(kind: RecordKind, name: string): Promise<{ answer: Answer<unknown>; ttl: number }> {
    let timer: NodeJS.Timeout | undefined;
    try {
      const instance = await ready();
      const lookupRecords = (async () => {
        switch (kind) {
          case 'NS':
            return { records: await instance.resolveNs(name), ttl: DEFAULT_TTL_SECONDS };
          case 'MX':
            return { records: await instance.resolveMx(name), ttl: DEFAULT_TTL_SECONDS };
          case 'A':
          case 'AAAA': {
            const records = kind === 'A' ? await instance.resolve4(name, { ttl: true }) : await instance.resolve6(name, { ttl: true });
            return { records: records.map((r) => r.address), ttl: Math.min(MAX_TTL_SECONDS, ...records.map((r) => r.ttl)) };
          }
        }
      })();
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error('DNS lookup timed out'), { code: 'ETIMEOUT' })), DNS_TIMEOUT_MS);
      });
      lookupRecords.catch(() => {}); // after the deadline its rejection has no one to tell
      const { records, ttl } = await Promise.race([lookupRecords, deadline]);
      return { answer: { status: 'found', records }, ttl: Math.min(ttl, MAX_TTL_SECONDS) };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'UNKNOWN';
      if (code === 'ENOTFOUND' || code === 'ENODATA') {
        return { answer: { status: 'absent', nxdomain: code === 'ENOTFOUND' }, ttl: NEGATIVE_TTL_SECONDS };
      }
      return { answer: { status: 'unavailable', code }, ttl: 0 };
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    ns: (domain) => query('NS', domain) as Promise<Answer<string>>,
    mx: (domain) => query('MX', domain) as Promise<Answer<MxRecord>>,
    a: (domain) => query('A', domain) as Promise<Answer<string>>,
    aaaa: (domain) => query('AAAA', domain) as Promise<Answer<string>>,
    close() {
      resolver?.then((instance) => instance.cancel()).catch(() => {});
    },
  };
}
