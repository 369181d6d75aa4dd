import { jwtVerify, SignJWT } from 'jose';

export const SESSION_COOKIE = 'mailroom_session';
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

/** A verified session token: its user and the server-side session record it names (user_sessions). */
export type SessionClaims = { userId: string; sessionId: string };

/**
 * Dashboard sessions: an HS256 JWT in an HttpOnly cookie (the API reference (Authentication)) that names a
 * server-side session record. The signature proves the token was issued here; the record, checked
 * on every request (src/http/auth.ts), says whether the session still lives: logging out, ending it
 * from the Sessions list or changing the password ends it at once on every process
 * (docs/security.md).
 */
export class SessionTokens {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(`session:${secret}`);
  }

  sign(userId: string, sessionId: string): Promise<string> {
    return new SignJWT({ sid: sessionId }).setProtectedHeader({ alg: 'HS256' }).setSubject(userId).setIssuedAt().setExpirationTime(`${SESSION_TTL_SECONDS}s`).sign(this.key);
  }

  /** The session's claims, or undefined for a missing, forged or expired token. */
  async verify(token: string | undefined): Promise<SessionClaims | undefined> {
    if (!token) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      // Tokens from before session records name none: they no longer open a session.
      if (!payload.sub || typeof payload.sid !== 'string') return undefined;
      return { userId: payload.sub, sessionId: payload.sid };
    } catch {
      return undefined;
    }
  }
}

export const sessionCookieOptions = (secure: boolean) => ({
  path: '/',
  httpOnly: true,
  sameSite: 'lax' as const,
  secure,
  maxAge: SESSION_TTL_SECONDS,
});
