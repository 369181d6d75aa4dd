import type { Queryable } from '../db/index.ts';

/**
 * What one take got: `granted` tokens, the `tokens` left in the bucket after it, and the bucket's
 * clock then (`at`, epoch milliseconds of the database's time): grants never exceed one bucket plus
 * the refill between two such instants.
 */
export type RateTake = { granted: number; tokens: number; at: number };

// The bucket's content now: what was left, refilled at `rate` per second since, at most `rate`.
// "Now" is the proposed row's refilled_at (now() in VALUES): Citus allows only immutable functions
// in DO UPDATE SET on a distributed table, and now() is stable (docs/citus.md).
const AVAILABLE = 'least($3::float8, b.tokens + greatest(0, extract(epoch FROM EXCLUDED.refilled_at - b.refilled_at)) * $3::float8)';
// What a take of $2 gets: whole tokens above the reserve $4 (docs/streams.md), at most $2.
const grant = (available: string) => `least($2::int, greatest(0, floor(${available} - $4::float8)))::int`;

/**
 * Takes up to `want` tokens from the project's bucket (SEND_RATE_PER_SECOND, refilled at `rate`
 * per second, holding at most one second's worth), leaving at least `reserve` in it: one
 * statement, serialised on the project's row, so concurrent workers never take the same token.
 */
export async function takeTokens(db: Queryable, projectId: string, want: number, rate: number, reserve: number): Promise<RateTake> {
  const rows = await db.query<{ granted: number; tokens: number; at: Date | string }>(
    `INSERT INTO send_rates AS b (project_id, tokens, refilled_at, granted)
     VALUES ($1, $3::float8 - ${grant('$3::float8')}, now(), ${grant('$3::float8')})
     ON CONFLICT (project_id) DO UPDATE SET
       tokens = ${AVAILABLE} - ${grant(AVAILABLE)},
       refilled_at = greatest(b.refilled_at, EXCLUDED.refilled_at),
       granted = ${grant(AVAILABLE)}
     RETURNING granted, tokens, refilled_at AS at`,
    [projectId, want, rate, reserve],
  );
  const row = rows[0]!;
  return { granted: Number(row.granted), tokens: Number(row.tokens), at: new Date(row.at).getTime() };
}
