import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { OutboundError } from '../outbound/index.ts';

/** docs/decisions/webhook-endpoints.md: success is a 2xx within 10 s. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Bytes of an answer kept in the attempt log (docs/decisions/webhook-endpoints.md: the first 1 KB). */
export const KEPT_RESPONSE_BYTES = 1024;

export type DeliveryAnswer = { statusCode: number | null; response: string };

const invalidUrl = (message: string) => new AppError('VALIDATION_ERROR', { errors: [{ field: 'url', message, code: 'invalid_string' }] });

/**
 * An endpoint URL as accepted at creation and update (docs/decisions/webhook-endpoints.md): https, or http too when
 * WEBHOOK_ALLOW_PRIVATE. The outbound guard resolves it now: a private, loopback or link-local
 * target (literal, or a name resolving to one) is a 422. A name that does not resolve yet is
 * accepted; every delivery is checked again anyway.
 */
export async function checkEndpointUrl(deps: Pick<Deps, 'config' | 'outbound'>, raw: string): Promise<void> {
  const url = new URL(raw);
  const allowPrivate = deps.config.webhookAllowPrivate;
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:')) throw invalidUrl(allowPrivate ? 'Expected an http or https URL' : 'Expected an https URL');
  if (url.username || url.password) throw invalidUrl('Credentials in the URL are not accepted; check the signature instead');
  try {
    await deps.outbound.check(raw, 5_000);
  } catch (error) {
    if (error instanceof OutboundError && (error.kind === 'refused' || error.kind === 'scheme')) throw invalidUrl(error.message);
    if (!(error instanceof OutboundError)) throw error;
  }
}

/**
 * POSTs one signed delivery through the guarded outbound client, which checks the target again.
 * No redirect is followed: a 3xx is a failed attempt (Stripe and Svix do the same), so a redirect
 * cannot lead a delivery anywhere. Never throws: a refused target, a timeout or a network error is
 * an answer without status code, with the reason as its response.
 */
export async function postDelivery(deps: Pick<Deps, 'outbound'>, request: { url: string; headers: Record<string, string>; body: string }): Promise<DeliveryAnswer> {
  try {
    const answer = await deps.outbound.request({
      url: request.url,
      method: 'POST',
      headers: request.headers,
      body: request.body,
      maxRedirects: 0,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBodyBytes: KEPT_RESPONSE_BYTES,
    });
    return { statusCode: answer.status, response: answer.body };
  } catch (error) {
    return { statusCode: null, response: (error as Error).message.slice(0, KEPT_RESPONSE_BYTES) };
  }
}
