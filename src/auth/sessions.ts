import { SignJWT, jwtVerify } from 'jose';

export const SESSION_COOKIE = 'mailroom_session';
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

/** A verified session: its user, and the generation it was issued in (users.session_generation). */
export type SessionClaims = { userId: string; generation: number };

/**
 * Dashboard sessions: an HS256 JWT in an HttpOnly cookie (api.md Authentication 8). The token
 * carries the user's session generation; a password reset moves the user to the next one, so
 * every token issued before it stops working (src/http/auth.ts compares them).
 */
export class SessionTokens {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(`session:${secret}`);
  }

  sign(userId: string, generation: number): Promise<string> {
    return new SignJWT({ gen: generation }).setProtectedHeader({ alg: 'HS256' }).setSubject(userId).setIssuedAt().setExpirationTime(`${SESSION_TTL_SECONDS}s`).sign(this.key);
  }

  /** The session's claims, or undefined for a missing, forged or expired token. */
  async verify(token: string | undefined): Promise<SessionClaims | undefined> {
    if (!token) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      if (!payload.sub) return undefined;
      // Tokens issued before generations existed carry none: they belong to the first one.
      return { userId: payload.sub, generation: typeof payload.gen === 'number' ? payload.gen : 0 };
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
