import { hashPassword } from '../auth/passwords.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { decodeAccountToken, TOKEN_TTL_SECONDS, type TokenPurpose } from './account-tokens.ts';
import { ACCOUNT_MAIL_JOB, type AccountMailData } from './accounts.jobs.ts';
import { refusePasswordGuessableFrom } from './accounts.service.ts';
import { consumeToken, findPendingToken, findUserForMail, issueToken, markEmailVerified, replacePassword } from './email-flows.queries.ts';
import { acceptInvitations } from './invitations.queries.ts';

type FlowDeps = Pick<Deps, 'config' | 'db' | 'queue'>;

/** Tokens a user can be mailed per purpose per hour; further requests are accepted and ignored. */
const MAX_TOKENS_PER_HOUR = 5;

const invalidToken = () => new AppError('INVALID_TOKEN', { suggestion: 'Ask for a new email: each link works once, and only until it expires.' });

/** Issues a token and queues its mail in one transaction (the worker sends it, with retries). */
async function mailToken(deps: FlowDeps, user: { id: string; email: string }, purpose: TokenPurpose): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const token = await issueToken(tx, user, purpose, TOKEN_TTL_SECONDS[purpose], MAX_TOKENS_PER_HOUR);
    if (token) await deps.queue.send<AccountMailData>(ACCOUNT_MAIL_JOB, { tokenId: token.id }, { tx });
  });
}

/** POST /auth/request-verification (session): mails a link confirming the account's address. */
export async function requestVerification(deps: FlowDeps, userId: string): Promise<void> {
  const user = await findUserForMail(deps.db, { id: userId });
  if (!user) throw new AppError('UNAUTHORIZED', { message: 'Log in first.' });
  if (user.email_verified_at) return;
  await mailToken(deps, user, 'verify-email');
}

/** POST /auth/verify-email: uses a verification token (once) and marks the address verified. */
export async function verifyEmail(deps: FlowDeps, token: string) {
  const id = decodeAccountToken(deps.config.sessionSecret, token, 'verify-email');
  if (!id) throw invalidToken();
  const user = await deps.db.transaction(async (tx) => {
    const used = await consumeToken(tx, id, 'verify-email');
    const verified = used ? await markEmailVerified(tx, used.user_id, used.email) : undefined;
    // A confirmed address joins the projects that invited it (docs/decisions/accounts.md, "Invitations").
    if (verified) await acceptInvitations(tx, verified.id, verified.email);
    return verified;
  });
  if (!user) throw invalidToken();
  return { id: user.id, email: user.email, emailVerifiedAt: user.email_verified_at ? new Date(user.email_verified_at).toISOString() : null };
}

/**
 * POST /auth/request-password-reset: mails a reset link when an account has the address. The
 * answer is the same either way, so the endpoint does not tell which addresses have accounts.
 */
export async function requestPasswordReset(deps: FlowDeps, email: string): Promise<void> {
  const user = await findUserForMail(deps.db, { email: email.trim().toLowerCase() });
  if (user) await mailToken(deps, user, 'reset-password');
}

/**
 * POST /auth/reset-password: uses a reset token (once) to set a new password. The mail reached the
 * inbox, so the address counts as verified too.
 */
export async function resetPassword(deps: FlowDeps, token: string, password: string): Promise<void> {
  const id = decodeAccountToken(deps.config.sessionSecret, token, 'reset-password');
  if (!id) throw invalidToken();
  const pending = await findPendingToken(deps.db, id);
  if (!pending) throw invalidToken();
  refusePasswordGuessableFrom(pending.email, password);
  const passwordHash = await hashPassword(password);
  const done = await deps.db.transaction(async (tx) => {
    const used = await consumeToken(tx, id, 'reset-password');
    if (!used) return false;
    await replacePassword(tx, used.user_id, passwordHash);
    await markEmailVerified(tx, used.user_id, used.email);
    return true;
  });
  if (!done) throw invalidToken();
}
