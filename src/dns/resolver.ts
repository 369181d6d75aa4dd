import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/** docs/decisions/domains.md and docs/decisions/verify.md: lookups time out after 5 seconds. */
export const DNS_TIMEOUT_MS = 5000;

/**
 * A resolver for DNS_SERVERS (`host[:port]`, docs/architecture.md), or the system resolvers when none are
 * configured. One attempt per lookup: a timeout is reported, not retried behind the caller's back.
 */
export async function createResolver(servers: readonly string[]): Promise<Resolver> {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 1 });
  if (servers.length) resolver.setServers(await Promise.all(servers.map(toServerAddress)));
  return resolver;
}

/**
 * `host[:port]` → the `ip[:port]` / `[ipv6]:port` form node's setServers accepts (it takes only IP
 * addresses). A host name is looked up once through the system resolver.
 */
export async function toServerAddress(server: string): Promise<string> {
  const bracketed = /^\[([0-9a-fA-F:.]+)\](?::(\d+))?$/.exec(server);
  if (bracketed) return bracketed[2] ? `[${bracketed[1]}]:${bracketed[2]}` : bracketed[1]!;
  if (isIP(server) === 6) return server;
  const [host, port] = server.split(':') as [string, string | undefined];
  let address = host;
  if (!isIP(host)) {
    try {
      address = (await lookup(host)).address;
    } catch (error) {
      throw new Error(`DNS_SERVERS: cannot resolve the DNS server name "${host}" (${(error as NodeJS.ErrnoException).code ?? error})`);
    }
  }
  const ip = isIP(address) === 6 ? `[${address}]` : address;
  return port ? `${ip}:${port}` : ip;
}
