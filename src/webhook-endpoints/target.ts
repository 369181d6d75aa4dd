import type { Config } from '../config.ts';
import { AppError } from '../http/errors.ts';
import { callWebhook, isPrivateAddress } from '../workflows/engine/webhook.ts';

/** contract §14: success is a 2xx within 10 s. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** Bytes of an answer kept in the attempt log. */
export const KEPT_RESPONSE_BYTES = 1024;

export type DeliveryAnswer = { statusCode: number | null; response: string };

const invalidUrl = (message: string) => new AppError('VALIDATION_ERROR', { errors: [{ field: 'url', message, code: 'invalid_string' }] });

/**
 * An endpoint URL as accepted at creation and update (contract §14): https, or any http(s) when
 * WEBHOOK_ALLOW_PRIVATE; with private targets refused, a literal private address or a name that
 * resolves to one is a 422. The same check runs again at every delivery.
 */
export async function checkEndpointUrl(config: Config, raw: string): Promise<void> {
  const url = new URL(raw);
  if (url.protocol !== 'https:' && !(config.webhookAllowPrivate && url.protocol === 'http:')) {
    throw invalidUrl(config.webhookAllowPrivate ? 'Expected an http or https URL' : 'Expected an https URL');
  }
  if (url.username || url.password) throw invalidUrl('Credentials in the URL are not accepted; authenticate with the signature');
  if (config.webhookAllowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isPrivateAddress(host) && /^[\d.]+$|:/.test(host)) throw invalidUrl(`Refused: ${host} is a private, loopback or link-local address`);
}

/**
 * POSTs one signed delivery through the guarded outbound client: no redirect is followed (a 3xx is
 * a failure, as with Stripe and Svix), the whole call within 10 s. Never throws: a refused target,
 * a timeout or a network error is an answer without status code, with the reason as response.
 */
export async function postDelivery(config: Config, request: { url: string; headers: Record<string, string>; body: string }): Promise<DeliveryAnswer> {
  try {
    const answer = await callWebhook({ url: request.url, method: 'POST', headers: request.headers, body: request.body }, { allowPrivate: config.webhookAllowPrivate });
    return { statusCode: answer.status, response: answer.body.slice(0, KEPT_RESPONSE_BYTES) };
  } catch (error) {
    return { statusCode: null, response: (error as Error).message.slice(0, KEPT_RESPONSE_BYTES) };
  }
}
