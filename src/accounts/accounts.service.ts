import { accountInputsOf, weakPasswordIssue, weakPasswordReason } from '../auth/password-policy.ts';
import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../auth/passwords.ts';
import { SESSION_TTL_SECONDS } from '../auth/sessions.ts';
import type { ConstraintErrors } from '../db/errors.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { findUserById, findUserCredentials, findUserPassword, insertUser, setPassword } from './accounts.queries.ts';
import { checkLoginAllowed, loginFailed, loginSucceeded, oneAtATime } from './login-throttle.ts';
import { endSessionsOf, insertSession } from './sessions.queries.ts';
import { findTwoFactor } from './two-factor.queries.ts';
import { type SecondFactor, secondFactorMatches } from './two-factor.service.ts';

/** Sign-up with an email an account already has → 409 (wired in modules.ts). */
export const accountConstraintErrors: ConstraintErrors = {
  users_email_key: () => new AppError('EMAIL_IN_USE', { message: 'An account with this email already exists.' }),
};

type AccountDeps = Pick<Deps, 'config' | 'db'>;

/** Where a session is opened from: shown in the account's Sessions list. */
export type ClientInfo = { userAgent: string; ip: string };

// Addresses are compared case-insensitively by storing them lower-cased.
const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * The password policy's last check, which needs the account: a password built from the account's
 * own address is refused (422 on `field`, like the schema's own strength check).
 */
export function refusePasswordGuessableFrom(email: string, password: string, field = 'password'): void {
  const reason = weakPasswordReason(password, accountInputsOf(email));
  if (reason) throw new AppError('VALIDATION_ERROR', { errors: [weakPasswordIssue(field, reason)] });
}

/** Opens a session record (src/auth/sessions.ts); its id goes into the cookie. */
export function openSession(deps: AccountDeps, userId: string, client: ClientInfo): Promise<string> {
  return insertSession(deps.db, userId, client.userAgent.slice(0, 512), client.ip, SESSION_TTL_SECONDS);
}

/** docs/decisions/accounts.md: POST /auth/signup, unless the deployment turned sign-up off. */
export async function signUp(deps: AccountDeps, email: string, password: string, client: ClientInfo) {
  if (!deps.config.signupEnabled) throw new AppError('SIGNUP_DISABLED');
  refusePasswordGuessableFrom(email, password);
  const user = await insertUser(deps.db, normalizeEmail(email), await hashPassword(password));
  return { account: { id: user.id, email: user.email }, sessionId: await openSession(deps, user.id, client) };
}

/** What a right password opens: a session, or (two-factor sign-in enabled) the step that asks for a code. */
export type LogInResult = { account: { id: string; email: string }; sessionId: string } | { twoFactor: { userId: string; email: string } };

/**
 * Checks an email and password. An unknown email still costs one scrypt comparison (against a
 * dummy hash), so response time does not tell which accounts exist. Returns the account and the
 * new session's id, which the cookie carries (src/auth/sessions.ts); for an account with
 * two-factor sign-in, no session yet but the account the code step is for. Its failure count is
 * then cleared only by a right code, so wrong codes add up in the same throttle.
 */
export async function logIn(deps: AccountDeps, email: string, password: string, client: ClientInfo): Promise<LogInResult> {
  const normalized = normalizeEmail(email);
  return oneAtATime(normalized, async () => {
    // Throttled attempts are refused before the (costly) password check, known email or not.
    await checkLoginAllowed(deps.db, normalized, client.ip);
    const user = await findUserCredentials(deps.db, normalized);
    const matches = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!user || !matches) {
      await loginFailed(deps.db, normalized, client.ip);
      throw new AppError('INVALID_CREDENTIALS');
    }
    if ((await findTwoFactor(deps.db, user.id))?.enabled) return { twoFactor: { userId: user.id, email: user.email } };
    await loginSucceeded(deps.db, normalized, client.ip);
    return { account: { id: user.id, email: user.email }, sessionId: await openSession(deps, user.id, client) };
  });
}

/**
 * The second step of a log-in with two-factor sign-in: the account named by the verified challenge
 * and a current code (or an unused recovery code) open the session. Wrong codes count as failed
 * log-ins of the email, under the same growing delay as wrong passwords.
 */
export async function logInSecondFactor(deps: AccountDeps, challenge: { userId: string; email: string }, factor: SecondFactor, client: ClientInfo) {
  const email = challenge.email;
  return oneAtATime(email, async () => {
    await checkLoginAllowed(deps.db, email, client.ip);
    const row = await findTwoFactor(deps.db, challenge.userId);
    if (!row || !(await secondFactorMatches(deps, row, factor))) {
      await loginFailed(deps.db, email, client.ip);
      throw new AppError('INVALID_TOTP_CODE');
    }
    await loginSucceeded(deps.db, email, client.ip);
    return { account: { id: row.id, email: row.email }, sessionId: await openSession(deps, row.id, client) };
  });
}

/**
 * POST /users/@me/password: a new password, given the current one. Every other session of the
 * account ends (whoever knew the old password is signed out); this one stays.
 */
export async function changePassword(deps: AccountDeps, user: { id: string; sessionId: string }, currentPassword: string, newPassword: string): Promise<{ endedSessions: number }> {
  const stored = await findUserPassword(deps.db, user.id);
  if (!stored) throw new AppError('UNAUTHORIZED', { message: 'Log in first.' });
  if (!(await verifyPassword(currentPassword, stored.passwordHash))) {
    throw new AppError('INVALID_CREDENTIALS', { message: 'The current password is incorrect.' });
  }
  refusePasswordGuessableFrom(stored.email, newPassword, 'newPassword');
  const passwordHash = await hashPassword(newPassword);
  const endedSessions = await deps.db.transaction(async (tx) => {
    await setPassword(tx, user.id, passwordHash);
    return endSessionsOf(tx, user.id, user.sessionId);
  });
  return { endedSessions };
}

export async function currentUser(deps: AccountDeps, userId: string) {
  const user = await findUserById(deps.db, userId);
  if (!user) throw new AppError('UNAUTHORIZED', { message: 'Log in first.' });
  return user;
}
