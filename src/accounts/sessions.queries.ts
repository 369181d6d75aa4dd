import type { Queryable } from '../db/index.ts';

export type SessionRow = { id: string; userAgent: string; ip: string; createdAt: Date; lastSeenAt: Date };

/** Opens a session record for a user who just proved who they are; returns its id. */
export async function insertSession(db: Queryable, userId: string, userAgent: string, ip: string, ttlSeconds: number): Promise<string> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO user_sessions (user_id, user_agent, ip, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4)) RETURNING id`,
    [userId, userAgent, ip, ttlSeconds],
  );
  return rows[0]!.id;
}

/** The user's live sessions, the most recently seen first. */
export async function listLiveSessions(db: Queryable, userId: string): Promise<SessionRow[]> {
  return db.query<SessionRow>(
    `SELECT id, user_agent AS "userAgent", ip, created_at AS "createdAt", last_seen_at AS "lastSeenAt"
       FROM user_sessions WHERE user_id = $1 AND ended_at IS NULL AND expires_at > now()
      ORDER BY last_seen_at DESC, id LIMIT 200`,
    [userId],
  );
}

/** Ends one of the user's sessions; false when the user has no such live session. */
export async function endSession(db: Queryable, userId: string, sessionId: string): Promise<boolean> {
  const rows = await db.query(`UPDATE user_sessions SET ended_at = now() WHERE id = $1 AND user_id = $2 AND ended_at IS NULL RETURNING id`, [sessionId, userId]);
  return rows.length > 0;
}

/** Ends every live session of the user but `keep` (none kept when null); returns how many ended. */
export async function endSessionsOf(db: Queryable, userId: string, keep: string | null): Promise<number> {
  const rows = await db.query(`UPDATE user_sessions SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL AND ($2::uuid IS NULL OR id <> $2::uuid) RETURNING id`, [
    userId,
    keep,
  ]);
  return rows.length;
}
