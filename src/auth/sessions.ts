import { SignJWT, jwtVerify } from 'jose';

export const SESSION_COOKIE = 'mailroom_session';
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

/** Dashboard sessions: an HS256 JWT in an HttpOnly cookie (api.md Authentication 8). */
export class SessionTokens {
  private readonly key: Uint8Array;

  constructor(secret: string) {
    this.key = new TextEncoder().encode(`session:${secret}`);
  }

  sign(userId: string): Promise<string> {
    return new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(userId).setIssuedAt().setExpirationTime(`${SESSION_TTL_SECONDS}s`).sign(this.key);
  }

  /** The user id, or undefined for a missing, forged or expired token. */
  async verify(token: string | undefined): Promise<string | undefined> {
    if (!token) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] });
      return payload.sub;
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
