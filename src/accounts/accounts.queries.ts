import type { Queryable } from '../db/index.ts';

export type UserRow = { id: string; email: string; createdAt: string; twoFactorEnabled: boolean };

type RawUser = { id: string; email: string; created_at: Date; two_factor: boolean };

const toUser = (row: RawUser): UserRow => ({ id: row.id, email: row.email, createdAt: row.created_at.toISOString(), twoFactorEnabled: row.two_factor });

/** Inserts a user; a taken email raises users_email_key, which db/errors.ts turns into a 409. */
export async function insertUser(db: Queryable, email: string, passwordHash: string): Promise<UserRow> {
  const rows = await db.query<RawUser>('INSERT INTO users (email, password_hash) VALUES ($1, $2) RETURNING id, email, created_at, false AS two_factor', [email, passwordHash]);
  return toUser(rows[0]!);
}

export type UserCredentials = { id: string; email: string; passwordHash: string };

export async function findUserCredentials(db: Queryable, email: string): Promise<UserCredentials | undefined> {
  const rows = await db.query<UserCredentials>('SELECT id, email, password_hash AS "passwordHash" FROM users WHERE email = $1', [email]);
  return rows[0];
}

export async function findUserById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const rows = await db.query<RawUser>('SELECT id, email, created_at, totp_enabled_at IS NOT NULL AS two_factor FROM users WHERE id = $1', [id]);
  return rows[0] ? toUser(rows[0]) : undefined;
}

export async function findUserPassword(db: Queryable, id: string): Promise<UserCredentials | undefined> {
  const rows = await db.query<UserCredentials>('SELECT id, email, password_hash AS "passwordHash" FROM users WHERE id = $1', [id]);
  return rows[0];
}

export async function setPassword(db: Queryable, id: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1', [id, passwordHash]);
}
