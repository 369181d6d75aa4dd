import { AppError } from '../errors.ts';

/** SQLSTATE codes we act on (PostgreSQL appendix A). */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const INVALID_TEXT_REPRESENTATION = '22P02';
const QUERY_CANCELED = '57014';

type PgError = { code?: string; constraint?: string; message?: string };

/**
 * A constraint's name as declared: on a Citus worker it is the shard's copy, suffixed with the shard
 * id. A write to a Citus reference table passes the worker's error on without its constraint field,
 * so the name is then read from the message (`… violates unique constraint "users_email_key_102010"`).
 */
function constraintOf(pg: PgError): string | undefined {
  const name = pg.constraint ?? /violates unique constraint "([^"]+)"/.exec(pg.message ?? '')?.[1];
  return name?.replace(/_\d{6,}$/, '');
}

/**
 * Unique constraint names that mean "this already exists" to a user, with the error they become
 * (a Capability's `constraintErrors`, src/modules.ts); any other is a plain CONFLICT.
 */
export type ConstraintErrors = Readonly<Record<string, () => AppError>>;

/** The one place that turns database errors into domain errors; undefined when it is a real fault. */
export function translateDbError(error: unknown, constraints: ConstraintErrors = {}): AppError | undefined {
  const pg = error as PgError;
  if (typeof pg?.code !== 'string') return undefined;
  if (pg.code === UNIQUE_VIOLATION) {
    const name = constraintOf(pg);
    const known = name && Object.hasOwn(constraints, name) ? constraints[name] : undefined;
    return known ? known() : new AppError('CONFLICT');
  }
  if (pg.code === FOREIGN_KEY_VIOLATION) return new AppError('NOT_FOUND', { message: 'A referenced resource does not exist.' });
  if (pg.code === INVALID_TEXT_REPRESENTATION) return new AppError('BAD_REQUEST', { message: 'A value has the wrong format.' });
  if (pg.code === QUERY_CANCELED) return new AppError('SERVICE_UNAVAILABLE', { message: 'The request took too long on the database and was stopped; narrow it and try again.' });
  return undefined;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pg = error as PgError;
  return pg?.code === UNIQUE_VIOLATION && (constraint === undefined || constraintOf(pg) === constraint);
}

const DEADLOCK_DETECTED = '40P01';

/**
 * Runs `work` again (up to `attempts` times in all) when the database ended it as one side of a
 * deadlock: the other side went through, and a statement that is safe to repeat then succeeds.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if ((error as PgError)?.code !== DEADLOCK_DETECTED || attempt >= attempts) throw error;
    }
  }
}

/**
 * Runs `work` until it succeeds or `withinMs` would pass before the next try: again 250 ms after a
 * failure, then after twice as long each time; `onRetry` hears of each failure tried again. For a
 * write worth repeating whatever failed it (a lost connection, a deadlock), while a claim's lease
 * lasts: the delivery's SMTP answers, the webhooks' outcomes.
 */
export async function retryWithin<T>(withinMs: number, work: () => Promise<T>, onRetry: (error: unknown) => void): Promise<T> {
  const until = Date.now() + withinMs;
  for (let wait = 250; ; wait *= 2) {
    try {
      return await work();
    } catch (error) {
      if (Date.now() + wait > until) throw error;
      onRetry(error);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
