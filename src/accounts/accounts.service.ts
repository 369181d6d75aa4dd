import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../auth/passwords.ts';
import type { ConstraintErrors } from '../db/errors.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { findUserById, findUserCredentials, insertUser } from './accounts.queries.ts';
import { checkLoginAllowed, loginFailed, loginSucceeded, oneAtATime } from './login-throttle.ts';

/** Sign-up with an email an account already has → 409 (wired in modules.ts). */
export const accountConstraintErrors: ConstraintErrors = {
  users_email_key: () => new AppError('EMAIL_IN_USE', { message: 'An account with this email already exists.' }),
};

type AccountDeps = Pick<Deps, 'config' | 'db'>;

// Addresses are compared case-insensitively by storing them lower-cased.
const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Contract §2: POST /auth/signup, unless the deployment turned sign-up off. */
export async function signUp(deps: AccountDeps, email: string, password: string) {
  if (!deps.config.signupEnabled) throw new AppError('SIGNUP_DISABLED');
  const user = await insertUser(deps.db, normalizeEmail(email), await hashPassword(password));
  // A new user is in the first session generation (the column's default).
  return { account: { id: user.id, email: user.email }, sessionGeneration: 0 };
}

/**
 * Checks an email and password. An unknown email still costs one scrypt comparison (against a
 * dummy hash), so response time does not tell which accounts exist. Returns the account and the
 * user's session generation, which the new session carries (src/auth/sessions.ts).
 */
export async function logIn(deps: AccountDeps, email: string, password: string, address: string) {
  const normalized = normalizeEmail(email);
  return oneAtATime(normalized, async () => {
    // Throttled attempts are refused before the (costly) password check, known email or not.
    await checkLoginAllowed(deps.db, normalized, address);
    const user = await findUserCredentials(deps.db, normalized);
    const matches = await verifyPassword(password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
    if (!user || !matches) {
      await loginFailed(deps.db, normalized, address);
      throw new AppError('INVALID_CREDENTIALS');
    }
    await loginSucceeded(deps.db, normalized, address);
    return { account: { id: user.id, email: user.email }, sessionGeneration: user.sessionGeneration };
  });
}

export async function currentUser(deps: AccountDeps, userId: string) {
  const user = await findUserById(deps.db, userId);
  if (!user) throw new AppError('UNAUTHORIZED', { message: 'Log in first.' });
  return user;
}
