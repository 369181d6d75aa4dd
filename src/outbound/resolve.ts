import { lookup, type Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isLoopbackName } from './addresses.ts';
import { OutboundError } from './errors.ts';

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () => reject(new OutboundError('timeout', 'DNS lookup timed out.'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

/**
 * Every address of `host`, IPv4 first: an IP literal as is; a name through DNS_SERVERS when they
 * are configured (A and AAAA), else through the system (getaddrinfo). `localhost` names are
 * loopback by definition (RFC 6761) and resolved by the system only when private calls are allowed.
 */
export async function resolveHost(host: string, options: { allowPrivate: boolean; resolver: (() => Promise<Resolver>) | undefined }, signal: AbortSignal): Promise<string[]> {
  if (isIP(host)) return [host];
  if (isLoopbackName(host)) {
    if (!options.allowPrivate) throw new OutboundError('refused', `Refused: ${host} is a private or loopback address (loopback name; WEBHOOK_ALLOW_PRIVATE is false).`);
    return systemLookup(host, signal);
  }
  if (!options.resolver) return systemLookup(host, signal);
  const resolver = await options.resolver();
  const [v4, v6] = await Promise.race([Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]), aborted(signal)]);
  const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
  if (addresses.length) return addresses;
  const failure = v4.status === 'rejected' ? (v4.reason as NodeJS.ErrnoException) : undefined;
  throw new OutboundError('dns', `${host} has no address (${failure?.code ?? 'no A or AAAA record'}).`);
}

async function systemLookup(host: string, signal: AbortSignal): Promise<string[]> {
  try {
    const found = await Promise.race([lookup(host, { all: true, order: 'ipv4first' }), aborted(signal)]);
    if (found.length) return found.map((entry) => entry.address);
  } catch (error) {
    if (error instanceof OutboundError) throw error;
    throw new OutboundError('dns', `${host} has no address (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`);
  }
  throw new OutboundError('dns', `${host} has no address.`);
}
