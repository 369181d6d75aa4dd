import type { Queryable } from '../db/index.ts';
import { AppError } from '../errors.ts';
import { clearFailures, findFailures, purgeFailures, recordFailure } from './login-throttle.queries.ts';

/**
 * Log-in throttling with a growing delay, per submitted email and per client address, counted in
 * the database so every process shares it. After FREE failures of a key, the next attempt must
 * wait 2^(failures − FREE) seconds after the last failure (1 s, 2 s, 4 s … at most 15 minutes);
 * a success clears the email's count; an hour without failure forgets a key. It is a delay, never
 * a lockout: whoever waits it out may try again, the account owner included. The same rule applies
 * to emails with and without an account, so the answer reveals nothing.
 */
export const FREE_FAILURES = { email: 5, address: 20 } as const;
export const MAX_DELAY_SECONDS = 15 * 60;

export function delaySeconds(failures: number, free: number): number {
  return failures < free ? 0 : Math.min(2 ** (failures - free), MAX_DELAY_SECONDS);
}

const keysOf = (email: string, address: string) => ({ email: `email:${email}`, address: `ip:${address}` });

/** Throws a 429 with Retry-After while either key must still wait. */
export async function checkLoginAllowed(db: Queryable, email: string, address: string): Promise<void> {
  const keys = keysOf(email, address);
  const rows = await findFailures(db, [keys.email, keys.address]);
  let wait = 0;
  for (const row of rows) {
    const free = row.key === keys.email ? FREE_FAILURES.email : FREE_FAILURES.address;
    wait = Math.max(wait, delaySeconds(row.failures, free) - row.secondsSince);
  }
  if (wait > 0) {
    const retryAfter = Math.ceil(wait);
    throw new AppError('RATE_LIMIT_EXCEEDED', {
      message: `Too many failed log-ins: try again in ${retryAfter} s.`,
      headers: { 'retry-after': String(retryAfter) },
      details: { retryAfter },
    });
  }
}

export async function loginFailed(db: Queryable, email: string, address: string): Promise<void> {
  const keys = keysOf(email, address);
  await recordFailure(db, [keys.email, keys.address]);
  // Keys are chosen by whoever logs in: now and then, drop the forgotten ones.
  if (Math.random() < 0.01) await purgeFailures(db);
}

export const loginSucceeded = (db: Queryable, email: string, address: string) => clearFailures(db, keysOf(email, address).email);

/**
 * One check at a time per email in this process: a burst of parallel guesses is judged one after
 * the other, each seeing the failures before it, instead of all passing the check together.
 */
const inFlight = new Map<string, Promise<unknown>>();
export async function oneAtATime<T>(email: string, work: () => Promise<T>): Promise<T> {
  const previous = inFlight.get(email) ?? Promise.resolve();
  const current = previous.then(work, work);
  const settled = current.catch(() => {});
  inFlight.set(email, settled);
  try {
    return await current;
  } finally {
    if (inFlight.get(email) === settled) inFlight.delete(email);
  }
}
