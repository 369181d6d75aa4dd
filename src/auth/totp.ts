import { createHash, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { authenticator } from 'otplib';
import QRCode from 'qrcode';

/**
 * TOTP two-factor sign-in (RFC 6238, docs/security.md): 6 digits, 30-second steps, SHA-1 (what
 * every authenticator app reads), one step of clock drift allowed either side.
 */
const totp = authenticator.clone({ window: 1 });

export const TOTP_ISSUER = 'Mailroom';
export const RECOVERY_CODE_COUNT = 10;
export const TOTP_CHALLENGE_TTL_SECONDS = 5 * 60;

export const newTotpSecret = (): string => totp.generateSecret(20);

export const totpUri = (email: string, secret: string): string => totp.keyuri(email, TOTP_ISSUER, secret);

export const totpQrCode = (uri: string): Promise<string> => QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', margin: 2, width: 240 });

/** Seconds per TOTP step. */
const STEP_SECONDS = 30;

/**
 * The step whose code `code` is (this step, or the one before or after), as a count of 30-second
 * steps since the epoch; undefined when it is none of them. The caller accepts a step once
 * (RFC 6238 §5.2: a used code must not be accepted again).
 */
export function totpStepOf(secret: string, code: string, now = Date.now()): number | undefined {
  const digits = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(digits)) return undefined;
  try {
    const delta = totp.clone({ epoch: now }).checkDelta(digits, secret);
    return delta === null ? undefined : Math.floor(now / 1000 / STEP_SECONDS) + delta;
  } catch {
    return undefined;
  }
}

/** Ten codes of 10 characters, grouped `xxxxx-xxxxx` for reading aloud; lower-case base32. */
export function newRecoveryCodes(): string[] {
  const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const chars = [...randomBytes(10)].map((byte) => alphabet[byte % alphabet.length]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5)}`;
  });
}

/** Recovery codes are random (50 bits), so a fast hash suffices; dashes, spaces and case are ignored. */
export const hashRecoveryCode = (code: string): string =>
  createHash('sha256')
    .update(`recovery:${code.replace(/[\s-]+/g, '').toLowerCase()}`)
    .digest('hex');

/**
 * The signed step between the password and the code: `POST /auth/login` answers it instead of a
 * session when the account has two-factor sign-in; `POST /auth/login/totp` takes it back with a
 * code. It names the account and the email that logged in (for the log-in throttle) and lasts 5
 * minutes; it is signed with the session secret under its own purpose, so it never opens a session.
 */
export class TotpChallenges {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(`totp-challenge:${secret}`);
  }

  sign(userId: string, email: string): Promise<string> {
    return new SignJWT({ email, purpose: 'totp' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(userId)
      .setIssuedAt()
      .setExpirationTime(`${TOTP_CHALLENGE_TTL_SECONDS}s`)
      .sign(this.key);
  }

  async verify(token: string): Promise<{ userId: string; email: string } | undefined> {
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      if (!payload.sub || payload.purpose !== 'totp' || typeof payload.email !== 'string') return undefined;
      return { userId: payload.sub, email: payload.email };
    } catch {
      return undefined;
    }
  }
}
