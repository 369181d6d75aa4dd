import type { Resolver } from 'node:dns/promises';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createResolver } from '../dns/resolver.ts';
import { forbiddenReason } from './addresses.ts';
import { OutboundError } from './errors.ts';
import { resolveHost } from './resolve.ts';

export { OutboundError, type OutboundErrorKind } from './errors.ts';

export type OutboundRequest = {
  url: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Redirects followed (each target checked again); 0 returns the 3xx as the answer. Default 3. */
  maxRedirects?: number;
  /** For the whole call: lookups, connects, redirects and body. Default 10 s. */
  timeoutMs?: number;
  /** Bytes of the answer's body kept; reading stops there. Default 4 KB. */
  maxBodyBytes?: number;
};

export type OutboundResponse = {
  status: number;
  headers: IncomingHttpHeaders;
  /** The first maxBodyBytes of the body, decoded as UTF-8. */
  body: string;
  /** True when the body was longer than maxBodyBytes. */
  truncated: boolean;
  /** The URL that gave this answer (after redirects). */
  url: string;
  redirects: number;
  /** The IP address connected to for that answer. */
  address: string;
};

/** The one HTTP client for every call the server makes to a URL it does not own. */
export type OutboundClient = {
  request(request: OutboundRequest): Promise<OutboundResponse>;
  /**
   * The guard alone, without a call: resolves the URL's host and throws the OutboundError a request
   * would (`scheme`, `refused`, `dns`). For URLs stored now and called later (webhook endpoints).
   */
  check(url: string, timeoutMs?: number): Promise<void>;
};

export type OutboundOptions = {
  /** WEBHOOK_ALLOW_PRIVATE: private and loopback addresses may be reached (development, tests). */
  allowPrivate: boolean;
  /** DNS_SERVERS (docs/architecture.md); empty or absent: the system's resolver (getaddrinfo, /etc/hosts). */
  dnsServers?: readonly string[];
  userAgent?: string;
  /** Addresses let through although not public: a seam for tests, whose receivers all live on loopback. */
  permit?: (address: string) => boolean;
};

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The SSRF guard: each hop resolves its host once, refuses the call if any address is not public
 * (unless allowPrivate), then connects to the very address it checked (the socket's lookup is
 * pinned), so DNS rebinding between the check and the connect cannot reach another host.
 */
export function createOutboundClient(options: OutboundOptions): OutboundClient {
  const servers = options.dnsServers ?? [];
  let ready: Promise<Resolver> | undefined;
  const resolver = servers.length
    ? () =>
        (ready ??= createResolver(servers).catch((error: Error) => {
          ready = undefined;
          throw new OutboundError('dns', error.message);
        }))
    : undefined;
  const resolved = { ...options, resolver };
  return {
    request: (request) => call(resolved, request),
    check: async (url, timeoutMs = 10_000) => {
      const signal = AbortSignal.timeout(timeoutMs);
      await checkedAddress(resolved, parseUrl(url).hostname, signal);
    },
  };
}

type Resolved = OutboundOptions & { resolver: (() => Promise<Resolver>) | undefined };

async function call(options: Resolved, request: OutboundRequest): Promise<OutboundResponse> {
  const timeoutMs = request.timeoutMs ?? 10_000;
  const maxRedirects = request.maxRedirects ?? 3;
  const signal = AbortSignal.timeout(timeoutMs);
  let url = parseUrl(request.url);
  let current = request;
  try {
    for (let redirects = 0; ; redirects++) {
      const pinned = await checkedAddress(options, url.hostname, signal);
      const answer = await hop(url, pinned, current, options.userAgent ?? 'Mailroom/1', signal);
      const location = REDIRECTS.has(answer.status) ? answer.headers.location : undefined;
      if (!location || maxRedirects === 0) return { ...answer, url: url.toString(), redirects, address: pinned.address };
      if (redirects === maxRedirects) throw new OutboundError('redirects', `More than ${maxRedirects} redirects (last to ${location}).`);
      const next = parseUrl(new URL(location, url).toString());
      current = redirected(current, answer.status, url, next);
      url = next;
    }
  } catch (error) {
    if (signal.aborted && !(error instanceof OutboundError && error.kind !== 'network')) {
      throw new OutboundError('timeout', `No complete answer within ${timeoutMs / 1000} s.`);
    }
    if (error instanceof OutboundError) throw error;
    throw new OutboundError('network', (error as Error).message);
  }
}

function parseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new OutboundError('scheme', `Not a URL: ${value.slice(0, 200)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new OutboundError('scheme', `Only http and https URLs can be called (${url.protocol}).`);
  return url;
}

/** 303, and 301/302 after a POST, continue as a GET without body, as browsers do; credentials stay with their origin. */
function redirected(request: OutboundRequest, status: number, from: URL, to: URL): OutboundRequest {
  const asGet = status === 303 || ((status === 301 || status === 302) && request.method === 'POST');
  const headers = { ...request.headers };
  for (const name of Object.keys(headers)) {
    if (to.origin !== from.origin && /^(authorization|cookie)$/i.test(name)) delete headers[name];
    if (asGet && /^content-(type|length)$/i.test(name)) delete headers[name];
  }
  return asGet ? { ...request, method: 'GET', headers, body: undefined } : { ...request, headers };
}

async function checkedAddress(options: Resolved, hostname: string, signal: AbortSignal): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const addresses = await resolveHost(host, options, signal);
  if (!options.allowPrivate) {
    for (const address of addresses) {
      const reason = options.permit?.(address) ? undefined : forbiddenReason(address);
      if (reason) {
        const what = isIP(host) ? host : `${host} resolves to ${address}, which`;
        throw new OutboundError('refused', `Refused: ${what} is a private or loopback address (${reason}; WEBHOOK_ALLOW_PRIVATE is false).`);
      }
    }
  }
  const address = addresses[0]!;
  return { address, family: isIP(address) === 6 ? 6 : 4 };
}

type Hop = Pick<OutboundResponse, 'status' | 'headers' | 'body' | 'truncated'>;

function hop(url: URL, pinned: { address: string; family: 4 | 6 }, request: OutboundRequest, userAgent: string, signal: AbortSignal): Promise<Hop> {
  const maxBodyBytes = request.maxBodyBytes ?? 4096;
  // The socket connects to the checked address whatever the name; TLS still verifies the name.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) (callback as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    else (callback as (e: null, a: string, f: number) => void)(null, pinned.address, pinned.family);
  };
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { 'user-agent': userAgent, ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const req = client.request(url, { method: request.method, headers, signal, agent: false, lookup }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let done = false;
      const finish = (truncated: boolean) => {
        if (done) return;
        done = true;
        res.destroy();
        const body = Buffer.concat(chunks).subarray(0, maxBodyBytes).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, truncated });
      };
      res.on('data', (chunk: Buffer) => {
        if (done) return;
        chunks.push(chunk);
        kept += chunk.length;
        // Stop reading past the kept bytes rather than download the rest.
        if (kept > maxBodyBytes) finish(true);
      });
      res.on('end', () => finish(false));
      res.on('error', (error) => (done ? undefined : reject(error)));
      // Closed before its end (the timeout, a reset): a no-op once the answer was taken.
      res.on('close', () => (done ? undefined : reject(new OutboundError('network', 'The connection closed before the answer was complete.'))));
    });
    req.on('error', reject);
    req.end(request.body);
  });
}
