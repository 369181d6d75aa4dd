import { type KeyObject, X509Certificate } from 'node:crypto';
import { AppError } from '../errors.ts';
import type { OutboundClient } from '../outbound/index.ts';

/** One HTTPS GET to Amazon: the seam tests replace (they must never reach the network). */
export type HttpsGet = (url: URL) => Promise<{ status: number; body: string }>;

// SNS signing certificates and subscription links live on the regional SNS endpoints only
// (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;
const MAX_RESPONSE_BYTES = 64 * 1024;
const TIMEOUT_MS = 5000;
const MAX_CACHED_CERTIFICATES = 50;

/** An https URL on an SNS host (default port, no credentials), or undefined. */
export function snsUrl(value: string, pathSuffix?: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' || url.port !== '' || url.username || url.password) return undefined;
  if (!SNS_HOST.test(url.hostname)) return undefined;
  if (pathSuffix && !url.pathname.endsWith(pathSuffix)) return undefined;
  return url;
}

/** The real transport: the outbound client with a timeout, no redirects (a redirect could leave Amazon) and a size cap. */
export function snsTransport(outbound: OutboundClient): HttpsGet {
  return async (url) => {
    const response = await outbound.request({ url: url.href, method: 'GET', maxRedirects: 0, timeoutMs: TIMEOUT_MS, maxBodyBytes: MAX_RESPONSE_BYTES });
    if (response.truncated) throw new Error(`response from ${url.host} is too large`);
    return { status: response.status, body: response.body };
  };
}

/**
 * Talks to Amazon SNS for POST /webhooks/ses: fetches signing certificates (cached by URL: SNS
 * signs with few, long-lived certificates) and visits SubscribeURLs. Built once in server.ts;
 * tests swap the transport with `useTransport`.
 */
export class SnsClient {
  #get: HttpsGet;
  #certificates = new Map<string, Promise<KeyObject>>();

  constructor(get: HttpsGet) {
    this.#get = get;
  }

  useTransport(get: HttpsGet) {
    this.#get = get;
    this.#certificates.clear();
  }

  /** The public key of the certificate at `url`, which must already be checked with snsUrl(). */
  signingKey(url: URL): Promise<KeyObject> {
    const cached = this.#certificates.get(url.href);
    if (cached) return cached;
    const loading = this.#loadCertificate(url);
    // A failed fetch is not remembered: the next notification tries again.
    loading.catch(() => this.#certificates.delete(url.href));
    if (this.#certificates.size >= MAX_CACHED_CERTIFICATES) this.#certificates.delete(this.#certificates.keys().next().value!);
    this.#certificates.set(url.href, loading);
    return loading;
  }

  async #loadCertificate(url: URL): Promise<KeyObject> {
    const response = await this.#get(url).catch((error: Error) => {
      // Amazon unreachable: a 5xx makes SNS deliver the notification again later.
      throw new AppError('SERVICE_UNAVAILABLE', { message: `The SNS signing certificate could not be fetched: ${error.message}` });
    });
    const refuse = (why: string) => new AppError('INVALID_SIGNATURE', { message: `The SNS signing certificate ${why}.` });
    if (response.status !== 200) throw refuse(`could not be fetched (status ${response.status})`);
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(response.body);
    } catch {
      throw refuse('is not an X.509 certificate');
    }
    const now = Date.now();
    if (now < Date.parse(certificate.validFrom) || now > Date.parse(certificate.validTo)) throw refuse('has expired or is not valid yet');
    return certificate.publicKey;
  }

  /** Confirms a subscription by visiting its SubscribeURL (checked with snsUrl()). */
  async confirmSubscription(url: URL): Promise<void> {
    const response = await this.#get(url).catch((error: Error) => ({ status: 0, body: error.message }));
    if (response.status < 200 || response.status >= 300) {
      // 5xx so SNS tries again later.
      throw new AppError('SERVICE_UNAVAILABLE', { message: `Confirming the SNS subscription failed (status ${response.status}).` });
    }
  }
}
