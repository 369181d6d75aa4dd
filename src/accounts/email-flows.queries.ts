import type { Queryable } from '../db/index.ts';
import type { TokenPurpose } from './account-tokens.ts';

/**
 * Issues a token for the user, unless `maxPerHour` were issued for this purpose in the last hour
 * (so the endpoints cannot be used to flood an inbox). Earlier unused tokens of the purpose stop
 * working: only the latest mail's link is valid.
 */
export async function issueToken(
  tx: Queryable,
  user: { id: string; email: string },
  purpose: TokenPurpose,
  ttlSeconds: number,
  maxPerHour: number,
): Promise<{ id: string; expires_at: Date } | undefined> {
  const recent = await tx.query<{ count: number }>(
    `SELECT count(*)::int AS count FROM auth_tokens WHERE user_id = $1 AND purpose = $2 AND created_at > now() - interval '1 hour'`,
    [user.id, purpose],
  );
  if (recent[0]!.count >= maxPerHour) return undefined;
  await tx.query(`UPDATE auth_tokens SET used_at = now() WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL`, [user.id, purpose]);
  const rows = await tx.query<{ id: string; expires_at: Date }>(
    `INSERT INTO auth_tokens (user_id, purpose, email, expires_at) VALUES ($1, $2, $3, now() + make_interval(secs => $4))
     RETURNING id, expires_at`,
    [user.id, purpose, user.email, ttlSeconds],
  );
  return rows[0];
}

export type PendingMail = { id: string; purpose: TokenPurpose; email: string; expires_at: Date };

/** A token still worth mailing (unused, unexpired). */
export async function findPendingToken(db: Queryable, id: string): Promise<PendingMail | undefined> {
  const rows = await db.query<PendingMail>(`SELECT id, purpose, email, expires_at FROM auth_tokens WHERE id = $1 AND used_at IS NULL AND expires_at > now()`, [id]);
  return rows[0];
}

/**
 * Uses a token: one statement that succeeds once (used_at set only where it was null), so of two
 * concurrent uses exactly one wins. Returns the user and address it was issued for.
 */
export async function consumeToken(tx: Queryable, id: string, purpose: TokenPurpose): Promise<{ user_id: string; email: string } | undefined> {
  const rows = await tx.query<{ user_id: string; email: string }>(
    `UPDATE auth_tokens SET used_at = now()
     WHERE id = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
     RETURNING user_id, email`,
    [id, purpose],
  );
  return rows[0];
}

/**
 * Marks the address verified if it is still the account's address; the account afterwards. The
 * time comes from the `clock` CTE: Citus refuses now() inside CASE in a write.
 */
export async function markEmailVerified(tx: Queryable, userId: string, email: string): Promise<{ id: string; email: string; email_verified_at: Date | null } | undefined> {
  const rows = await tx.query<{ id: string; email: string; email_verified_at: Date | null }>(
    `WITH clock AS MATERIALIZED (SELECT now() AS now)
     UPDATE users SET email_verified_at = CASE WHEN email = $2 THEN coalesce(email_verified_at, clock.now) ELSE email_verified_at END, updated_at = clock.now
       FROM clock
     WHERE id = $1 RETURNING id, email, email_verified_at`,
    [userId, email],
  );
  return rows[0];
}

/**
 * Sets a new password hash, ends every session of the user (whoever had the old password is
 * logged out everywhere) and retires every other outstanding reset token of the user.
 */
export async function replacePassword(tx: Queryable, userId: string, passwordHash: string): Promise<void> {
  await tx.query(`UPDATE users SET password_hash = $2, session_generation = session_generation + 1, updated_at = now() WHERE id = $1`, [userId, passwordHash]);
  await tx.query(`UPDATE user_sessions SET ended_at = now() WHERE user_id = $1 AND ended_at IS NULL`, [userId]);
  await tx.query(`UPDATE auth_tokens SET used_at = now() WHERE user_id = $1 AND purpose = 'reset-password' AND used_at IS NULL`, [userId]);
}

export async function findUserForMail(db: Queryable, by: { id: string } | { email: string }): Promise<{ id: string; email: string; email_verified_at: Date | null } | undefined> {
  const [column, value] = 'id' in by ? ['id', by.id] : ['email', by.email];
  const rows = await db.query<{ id: string; email: string; email_verified_at: Date | null }>(`SELECT id, email, email_verified_at FROM users WHERE ${column} = $1`, [value]);
  return rows[0];
}
