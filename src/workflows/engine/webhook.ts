import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** contract §11: 10 s for the whole call (redirects included), at most 3 redirects, 4 KB of body kept. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
export const MAX_REDIRECTS = 3;
export const KEPT_BODY_BYTES = 4096;

/**
 * Addresses a WEBHOOK may not reach unless WEBHOOK_ALLOW_PRIVATE (SSRF guard): loopback, private,
 * link-local, carrier-grade NAT, unspecified, multicast and reserved ranges. IPv4-mapped IPv6
 * addresses are checked against the IPv4 rules by BlockList itself.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A failure of the call itself (refused address, timeout, too many redirects, network error). */
export class WebhookError extends Error {
  override name = 'WebhookError';
}

/**
 * Resolves like dns.lookup, then refuses the connection if ANY address is private: the check is on
 * the address actually connected to, so a public name pointing at 127.0.0.1 (or rebinding between
 * a check and the connect) cannot get through.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return (callback as (e: Error) => void)(error);
    const list = addresses as dns.LookupAddress[];
    const refused = list.find((entry) => isPrivateAddress(entry.address));
    if (refused || list.length === 0) {
      const reason = refused ? `${hostname} resolves to ${refused.address}, a private or loopback address` : `${hostname} has no address`;
      return (callback as (e: Error) => void)(new WebhookError(`Refused: ${reason} (WEBHOOK_ALLOW_PRIVATE is false).`));
    }
    if (options.all) return (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    (callback as (e: null, a: string, f: number) => void)(null, list[0]!.address, list[0]!.family);
  });
};

export type WebhookRequest = { url: string; method: 'POST' | 'PUT' | 'PATCH' | 'GET'; headers: Record<string, string>; body?: string };
export type WebhookResponse = { status: number; body: string; url: string; redirects: number };

type Hop = { status: number; location: string | undefined; body: string };

function hop(url: URL, request: WebhookRequest, allowPrivate: boolean, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = { 'user-agent': 'Mailroom-Webhook/1', ...request.headers };
    if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
    const req = client.request(url, { method: request.method, headers, signal, agent: false, ...(allowPrivate ? {} : { lookup: guardedLookup }) }, (res) => {
      const status = res.statusCode ?? 0;
      const location = status >= 300 && status < 400 ? res.headers.location : undefined;
      const chunks: Buffer[] = [];
      let kept = 0;
      res.on('data', (chunk: Buffer) => {
        if (kept >= KEPT_BODY_BYTES) return;
        chunks.push(chunk);
        kept += chunk.length;
        // Only the first 4 KB are recorded: stop reading there rather than download the rest.
        if (kept >= KEPT_BODY_BYTES) finish();
      });
      const finish = () => {
        res.destroy();
        resolve({ status, location, body: Buffer.concat(chunks).subarray(0, KEPT_BODY_BYTES).toString('utf8') });
      };
      res.on('end', finish);
      res.on('error', (error) => (kept >= KEPT_BODY_BYTES ? undefined : reject(error)));
      // Closed before its end (the timeout, a reset): a no-op once the answer was taken.
      res.on('close', () => reject(new WebhookError('The connection closed before the answer was complete.')));
    });
    req.on('error', reject);
    req.end(request.body);
  });
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Calls a WEBHOOK step's endpoint (contract §11). Redirects are followed (at most 3; 303, and
 * 301/302 after a POST, continue as a GET without body, as browsers do; credentials are not carried
 * to another origin). Each hop goes through the SSRF guard unless `allowPrivate`.
 */
export async function callWebhook(request: WebhookRequest, options: { allowPrivate: boolean }): Promise<WebhookResponse> {
  const signal = AbortSignal.timeout(WEBHOOK_TIMEOUT_MS);
  let url = new URL(request.url);
  let current = request;
  for (let redirects = 0; ; redirects++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new WebhookError(`Only http and https URLs can be called (${url.protocol}).`);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A literal IP is connected to without a lookup, so it is checked here.
    if (!options.allowPrivate && isIP(host) && isPrivateAddress(host)) {
      throw new WebhookError(`Refused: ${host} is a private or loopback address (WEBHOOK_ALLOW_PRIVATE is false).`);
    }
    let answer: Hop;
    try {
      answer = await hop(url, current, options.allowPrivate, signal);
    } catch (error) {
      if (signal.aborted) throw new WebhookError(`No complete answer within ${WEBHOOK_TIMEOUT_MS / 1000} s.`);
      throw error;
    }
    if (!REDIRECTS.has(answer.status) || !answer.location) return { status: answer.status, body: answer.body, url: url.toString(), redirects };
    if (redirects === MAX_REDIRECTS) throw new WebhookError(`More than ${MAX_REDIRECTS} redirects (last to ${answer.location}).`);
    const next = new URL(answer.location, url);
    const asGet = answer.status === 303 || ((answer.status === 301 || answer.status === 302) && current.method === 'POST');
    const headers = { ...current.headers };
    if (next.origin !== url.origin) {
      for (const name of Object.keys(headers)) if (/^(authorization|cookie)$/i.test(name)) delete headers[name];
    }
    if (asGet) for (const name of Object.keys(headers)) if (/^content-type$/i.test(name)) delete headers[name];
    current = asGet ? { ...current, method: 'GET', headers, body: undefined } : { ...current, headers };
    url = next;
  }
}
