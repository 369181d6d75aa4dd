import { openSecret, sealSecret } from '../auth/secrets.ts';
import { hashRecoveryCode, newRecoveryCodes, newTotpSecret, totpQrCode, totpStepOf, totpUri } from '../auth/totp.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { consumeRecoveryCode, disableTotp, enableTotp, findTwoFactor, setPendingTotpSecret, type TwoFactorRow, useTotpStep } from './two-factor.queries.ts';

type TwoFactorDeps = Pick<Deps, 'db'>;

/** A second factor as sent: a current code, or one of the recovery codes. */
export type SecondFactor = { code?: string | undefined; recoveryCode?: string | undefined };

const PURPOSE = 'users.totp_secret';

async function accountOf(deps: TwoFactorDeps, userId: string): Promise<TwoFactorRow> {
  const row = await findTwoFactor(deps.db, userId);
  if (!row) throw new AppError('UNAUTHORIZED', { message: 'Log in first.' });
  return row;
}

/** Whether `code` is a current code of the account's secret that was not used before (its step is then used up). */
async function codeMatches(deps: TwoFactorDeps, row: TwoFactorRow, code: string): Promise<boolean> {
  const step = totpStepOf(openSecret(row.totpSecret!, PURPOSE), code);
  return step !== undefined && useTotpStep(deps.db, row.id, step);
}

/**
 * Checks a second factor of an account with two-factor sign-in enabled; a recovery code is used up.
 * Returns false when neither matches.
 */
export async function secondFactorMatches(deps: TwoFactorDeps, row: TwoFactorRow, factor: SecondFactor): Promise<boolean> {
  if (!row.enabled || !row.totpSecret) return false;
  if (factor.code) return codeMatches(deps, row, factor.code);
  if (factor.recoveryCode) return consumeRecoveryCode(deps.db, row.id, hashRecoveryCode(factor.recoveryCode));
  return false;
}

/** Step 1 of enrolment: a new secret (replacing an unconfirmed one), its otpauth:// URI and QR code. */
export async function startEnrolment(deps: TwoFactorDeps, userId: string) {
  const row = await accountOf(deps, userId);
  if (row.enabled) throw new AppError('TOTP_ALREADY_ENABLED');
  const secret = newTotpSecret();
  if (!(await setPendingTotpSecret(deps.db, userId, sealSecret(secret, PURPOSE)))) throw new AppError('TOTP_ALREADY_ENABLED');
  const uri = totpUri(row.email, secret);
  return { secret, uri, qrCode: await totpQrCode(uri) };
}

/** Step 2: the first code from the app turns it on; the ten recovery codes are returned this once. */
export async function confirmEnrolment(deps: TwoFactorDeps, userId: string, code: string) {
  const row = await accountOf(deps, userId);
  if (row.enabled) throw new AppError('TOTP_ALREADY_ENABLED');
  if (!row.totpSecret) throw new AppError('TOTP_NOT_ENROLLING');
  if (!(await codeMatches(deps, row, code))) throw new AppError('INVALID_TOTP_CODE');
  const recoveryCodes = newRecoveryCodes();
  if (!(await enableTotp(deps.db, userId, recoveryCodes.map(hashRecoveryCode)))) throw new AppError('TOTP_ALREADY_ENABLED');
  return { enabled: true as const, recoveryCodes };
}

/** Turns two-factor sign-in off, given a current code or a recovery code. */
export async function disableTwoFactor(deps: TwoFactorDeps, userId: string, factor: SecondFactor) {
  const row = await accountOf(deps, userId);
  if (!row.enabled) throw new AppError('TOTP_NOT_ENABLED');
  if (!(await secondFactorMatches(deps, row, factor))) throw new AppError('INVALID_TOTP_CODE');
  await disableTotp(deps.db, userId);
  return { enabled: false as const };
}
