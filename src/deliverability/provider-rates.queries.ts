import type { Queryable } from '../db/index.ts';
import type { Stream } from '../emails/emails.queries.ts';
import type { Provider } from './providers.ts';

export type ProviderKey = { projectId: string; stream: Stream; provider: Provider };

// The bucket of a provider's rate holds one second's worth, and at least one token. "Now" in DO
// UPDATE SET is the proposed row's refilled_at, as in send-rate.queries.ts (Citus: immutable only).
const AVAILABLE = 'least(greatest(b.rate, 1), b.tokens + greatest(0, extract(epoch FROM EXCLUDED.refilled_at - b.refilled_at)) * b.rate)';
const grant = (available: string) => `least($4::int, greatest(0, floor(${available})))::int`;

/**
 * Takes up to `want` tokens of the project's stream towards `provider`, at the provider's current
 * rate (a new one starts at `startRate`): one statement serialised on the row, as send_rates.
 */
export async function takeProviderTokens(db: Queryable, key: ProviderKey, want: number, startRate: number): Promise<{ granted: number; tokens: number; rate: number }> {
  const rows = await db.query<{ granted: number; tokens: number; rate: number }>(
    `INSERT INTO provider_rates AS b (project_id, stream, provider, rate, tokens, refilled_at, granted)
     VALUES ($1, $2, $3, $5::float8, $5::float8 - ${grant('$5::float8')}, now(), ${grant('$5::float8')})
     ON CONFLICT (project_id, stream, provider) DO UPDATE SET
       tokens = ${AVAILABLE} - ${grant(AVAILABLE)},
       refilled_at = greatest(b.refilled_at, EXCLUDED.refilled_at),
       granted = ${grant(AVAILABLE)}
     RETURNING granted, tokens, rate`,
    [key.projectId, key.stream, key.provider, want, startRate],
  );
  const row = rows[0]!;
  return { granted: Number(row.granted), tokens: Number(row.tokens), rate: Number(row.rate) };
}

export type RateLimits = { maxPerSecond: number; minPerSecond: number; increase: number };

/**
 * What a chunk's messages to one provider came to: with a deferral among them the rate halves
 * (at most once a second: the deferrals of messages already in flight are one signal), down to the
 * floor; otherwise each delivered message adds `increase`, up to the ceiling. Deferrals are counted
 * per minute for GET /deliverability.
 */
export async function recordProviderOutcomes(db: Queryable, key: ProviderKey, outcome: { delivered: number; deferred: number }, limits: RateLimits): Promise<void> {
  const decrease = `$5::int > 0 AND (b.decreased_at IS NULL OR extract(epoch FROM EXCLUDED.refilled_at - b.decreased_at) > 1)`;
  await db.query(
    `INSERT INTO provider_rates AS b (project_id, stream, provider, rate, tokens, refilled_at, decreased_at)
     VALUES ($1, $2, $3, CASE WHEN $5::int > 0 THEN greatest($7::float8, $6::float8 / 2) ELSE $6::float8 END, 0, now(),
             CASE WHEN $5::int > 0 THEN now() END)
     ON CONFLICT (project_id, stream, provider) DO UPDATE SET
       rate = CASE WHEN ${decrease} THEN greatest($7::float8, b.rate / 2)
                   WHEN $5::int > 0 THEN b.rate
                   ELSE least($6::float8, b.rate + $4::int * $8::float8) END,
       tokens = CASE WHEN ${decrease} THEN least(b.tokens, 0) ELSE b.tokens END,
       decreased_at = CASE WHEN ${decrease} THEN EXCLUDED.refilled_at ELSE b.decreased_at END`,
    [key.projectId, key.stream, key.provider, outcome.delivered, outcome.deferred, limits.maxPerSecond, limits.minPerSecond, limits.increase],
  );
  if (outcome.deferred > 0) {
    await db.query(
      `INSERT INTO provider_deferrals (project_id, stream, provider, minute, count) VALUES ($1, $2, $3, date_trunc('minute', now()), $4)
       ON CONFLICT (project_id, stream, provider, minute) DO UPDATE SET count = provider_deferrals.count + excluded.count`,
      [key.projectId, key.stream, key.provider, outcome.deferred],
    );
  }
}

export type ProviderRateRow = { stream: Stream; provider: Provider; rate: number; deferrals: number; decreased_at: Date | string | null };

/** The project's provider rates with their deferrals of the last hour, those with either. */
export async function listProviderRates(db: Queryable, projectId: string): Promise<ProviderRateRow[]> {
  return db.query<ProviderRateRow>(
    `SELECT coalesce(r.stream, d.stream) AS stream, coalesce(r.provider, d.provider) AS provider, r.rate, coalesce(d.deferrals, 0)::int AS deferrals, r.decreased_at
     FROM (SELECT stream, provider, rate, decreased_at FROM provider_rates WHERE project_id = $1) r
     FULL JOIN (
       SELECT stream, provider, sum(count) AS deferrals FROM provider_deferrals
       WHERE project_id = $1 AND minute > now() - interval '1 hour' GROUP BY stream, provider
     ) d ON d.stream = r.stream AND d.provider = r.provider
     ORDER BY 1, 2`,
    [projectId],
  );
}
