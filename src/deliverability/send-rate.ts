import type { Queryable } from '../db/index.ts';
import type { Stream } from '../emails/emails.queries.ts';
import { takeTokens } from './send-rate.queries.ts';

/**
 * The share of a project's bucket that marketing mail leaves for transactional mail
 * (docs/streams.md): a campaign drains the bucket down to it, so a transactional message finds a
 * token at once. The campaign loses no throughput: the bucket still refills at the full rate.
 */
export const TRANSACTIONAL_RESERVE = 0.2;

/**
 * SEND_RATE_PER_SECOND for all worker processes together (docs/streams.md): a token bucket per
 * project in the database. `take` answers, for `count` records of one project and stream, how
 * many may leave now and, for each of the others, in how many milliseconds it may (the caller
 * defers those records rather than holding them claimed).
 */
export class SendRate {
  constructor(
    private readonly db: Queryable,
    private readonly perSecond: number,
  ) {}

  async take(projectId: string, stream: Stream, count: number): Promise<{ now: number; laterMs: number[]; at?: number }> {
    if (this.perSecond <= 0 || count === 0) return { now: count, laterMs: [] };
    // Never the whole bucket: marketing can always take a token of a full one.
    const reserve = stream === 'marketing' ? Math.min(this.perSecond * TRANSACTIONAL_RESERVE, this.perSecond - 1) : 0;
    const { granted, tokens, at } = await takeTokens(this.db, projectId, count, this.perSecond, reserve);
    // The k-th deferred record may leave when the bucket holds its token above the reserve.
    const laterMs = Array.from({ length: count - granted }, (_, k) => Math.ceil(((k + 1 - (tokens - reserve)) / this.perSecond) * 1000));
    return { now: granted, laterMs, at };
  }
}
