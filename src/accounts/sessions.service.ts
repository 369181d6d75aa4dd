import Bowser from 'bowser';
import type { Deps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { endSession, endSessionsOf, listLiveSessions } from './sessions.queries.ts';

type SessionDeps = Pick<Deps, 'db'>;

/** "Firefox 133 on Windows", from the User-Agent the session was opened with. */
export function deviceOf(userAgent: string): string {
  if (!userAgent) return 'Unknown device';
  const parsed = Bowser.parse(userAgent);
  const browser = [parsed.browser.name, parsed.browser.version?.split('.')[0]].filter(Boolean).join(' ');
  const os = parsed.os.name;
  if (browser && os) return `${browser} on ${os}`;
  return browser || os || userAgent.slice(0, 60);
}

/** GET /users/@me/sessions: the account's live sessions; `current` marks the caller's. */
export async function listSessions(deps: SessionDeps, user: { id: string; sessionId: string }) {
  const rows = await listLiveSessions(deps.db, user.id);
  return {
    data: rows.map((row) => ({
      id: row.id,
      device: deviceOf(row.userAgent),
      userAgent: row.userAgent,
      ip: row.ip,
      createdAt: row.createdAt.toISOString(),
      lastSeenAt: row.lastSeenAt.toISOString(),
      current: row.id === user.sessionId,
    })),
  };
}

/** DELETE /users/@me/sessions/{id}: signs one session out, at once on every process. */
export async function signOutSession(deps: SessionDeps, userId: string, sessionId: string): Promise<void> {
  if (!(await endSession(deps.db, userId, sessionId))) throw notFound('Session');
}

/** DELETE /users/@me/sessions: "sign out everywhere" else; the caller's session stays. */
export async function signOutOtherSessions(deps: SessionDeps, user: { id: string; sessionId: string }): Promise<{ ended: number }> {
  return { ended: await endSessionsOf(deps.db, user.id, user.sessionId) };
}

/** GET /auth/logout: ends the session the cookie names, if it is genuine. */
export async function endOwnSession(deps: SessionDeps, claims: { userId: string; sessionId: string } | undefined): Promise<void> {
  if (claims) await endSession(deps.db, claims.userId, claims.sessionId);
}
