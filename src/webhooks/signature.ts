import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret (docs/decisions/webhook-endpoints.md): `whsec_` + base64 of 32 random bytes. */
export const newSecret = () => PREFIX + randomBytes(32).toString('base64');

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256, keyed by the base64-decoded secret
 * after `whsec_`, over `<webhook-id>.<webhook-timestamp>.<body>`. node:crypto is the library here;
 * the tests check the result with the `standardwebhooks` package.
 */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The webhook-signature header: one signature per live secret, space-separated (rotation overlap). */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => sign(secret, id, timestamp, body)).join(' ');
}
