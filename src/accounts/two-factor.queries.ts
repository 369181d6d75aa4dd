import type { Queryable } from '../db/index.ts';

/** The users columns of two-factor sign-in (migrations/0062_two_factor.sql); totp_secret is sealed. */
export type TwoFactorRow = { id: string; email: string; totpSecret: string | null; enabled: boolean };

export async function findTwoFactor(db: Queryable, userId: string): Promise<TwoFactorRow | undefined> {
  const rows = await db.query<TwoFactorRow>('SELECT id, email, totp_secret AS "totpSecret", totp_enabled_at IS NOT NULL AS enabled FROM users WHERE id = $1', [userId]);
  return rows[0];
}

/** A new secret awaiting its first code; only while two-factor sign-in is not enabled. */
export async function setPendingTotpSecret(db: Queryable, userId: string, sealedSecret: string): Promise<boolean> {
  const rows = await db.query('UPDATE users SET totp_secret = $2, totp_last_step = NULL, updated_at = now() WHERE id = $1 AND totp_enabled_at IS NULL RETURNING id', [
    userId,
    sealedSecret,
  ]);
  return rows.length > 0;
}

export async function enableTotp(db: Queryable, userId: string, recoveryHashes: string[]): Promise<boolean> {
  const rows = await db.query(
    'UPDATE users SET totp_enabled_at = now(), totp_recovery_hashes = $2::text[], updated_at = now() WHERE id = $1 AND totp_enabled_at IS NULL AND totp_secret IS NOT NULL RETURNING id',
    [userId, recoveryHashes],
  );
  return rows.length > 0;
}

export async function disableTotp(db: Queryable, userId: string): Promise<void> {
  await db.query("UPDATE users SET totp_secret = NULL, totp_enabled_at = NULL, totp_recovery_hashes = '{}', totp_last_step = NULL, updated_at = now() WHERE id = $1", [userId]);
}

/**
 * Uses a TOTP step: true when it is later than every step the account used before (so each code
 * is accepted once, even by racing requests), and it becomes the last one.
 */
export async function useTotpStep(db: Queryable, userId: string, step: number): Promise<boolean> {
  const rows = await db.query('UPDATE users SET totp_last_step = $2 WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id', [userId, step]);
  return rows.length > 0;
}

/** Removes one recovery code; true if it was there (so each is used once, even by racing requests). */
export async function consumeRecoveryCode(db: Queryable, userId: string, hash: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE users SET totp_recovery_hashes = array_remove(totp_recovery_hashes, $2), updated_at = now() WHERE id = $1 AND $2 = ANY(totp_recovery_hashes) RETURNING id',
    [userId, hash],
  );
  return rows.length > 0;
}

export async function countRecoveryCodes(db: Queryable, userId: string): Promise<number> {
  const rows = await db.query<{ n: number }>('SELECT cardinality(totp_recovery_hashes) AS n FROM users WHERE id = $1', [userId]);
  return rows[0]?.n ?? 0;
}
