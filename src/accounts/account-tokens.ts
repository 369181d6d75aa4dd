import { createHmac, timingSafeEqual } from 'node:crypto';

export type TokenPurpose = 'verify-email' | 'reset-password';

/** How long a mailed token works. */
export const TOKEN_TTL_SECONDS: Record<TokenPurpose, number> = { 'verify-email': 48 * 3600, 'reset-password': 3600 };

const sign = (secret: string, body: string) => createHmac('sha256', `account-token:${secret}`).update(body).digest();

/**
 * The token mailed for an auth_tokens row: its id, purpose and expiry, signed with the server
 * secret. Nothing replayable is stored (the row holds no token), a forged or altered token is refused
 * before any lookup, and the row's used_at makes a genuine one single-use.
 */
export function encodeAccountToken(secret: string, token: { id: string; purpose: TokenPurpose; expiresAt: Date }): string {
  const body = Buffer.from(JSON.stringify([token.id, token.purpose, Math.floor(token.expiresAt.getTime() / 1000)])).toString('base64url');
  return `${body}.${sign(secret, body).toString('base64url')}`;
}

/** The row id of a genuine, unexpired token for `purpose`; undefined otherwise. */
export function decodeAccountToken(secret: string, token: string, purpose: TokenPurpose): string | undefined {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) return undefined;
  const given = Buffer.from(signature, 'base64url');
  const wanted = sign(secret, body);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) return undefined;
  try {
    const [id, kind, expires] = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as [unknown, unknown, unknown];
    if (typeof id !== 'string' || kind !== purpose || typeof expires !== 'number' || expires * 1000 <= Date.now()) return undefined;
    return id;
  } catch {
    return undefined;
  }
}
