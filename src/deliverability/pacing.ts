import type { Resolver } from 'node:dns/promises';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/index.ts';
import type { EmailRow } from '../emails/emails.queries.ts';
import { type ProviderTally, ProviderThrottle } from './provider-throttle.ts';
import { ProviderLookup } from './providers.ts';
import { SendRate } from './send-rate.ts';

export type Paced = {
  /** The records that may leave now, in the chunk's order. */
  going: EmailRow[];
  /** The others, each with how many milliseconds until it may: back to the queue, not an attempt. */
  later: Array<{ row: EmailRow; ms: number }>;
  /** Where the going records' answers are noted for their providers' rates (none without throttles). */
  tally: ProviderTally | null;
};

/**
 * How fast a claimed chunk may leave (docs/streams.md): the project's SEND_RATE_PER_SECOND first,
 * then the rate of its stream towards each recipient's provider. One per worker process; the
 * state is in the database, shared by every worker.
 */
export class Pacing {
  private readonly rate: SendRate;
  private readonly providers: ProviderThrottle | null;

  /** `throttleProviders`: false when mail goes to the outbox (no receiver to defer it). */
  constructor(db: Queryable, config: Pick<Config, 'sendRatePerSecond' | 'providerRate'>, resolver: () => Promise<Resolver>, throttleProviders: boolean) {
    this.rate = new SendRate(db, config.sendRatePerSecond);
    this.providers = throttleProviders ? new ProviderThrottle(db, new ProviderLookup(resolver), config.providerRate) : null;
  }

  async pace(chunk: EmailRow[]): Promise<Paced> {
    const groups = new Map<string, EmailRow[]>();
    for (const row of chunk) {
      const key = `${row.project_id} ${row.stream}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const later: Paced['later'] = [];
    for (const rows of groups.values()) {
      const { now, laterMs } = await this.rate.take(rows[0]!.project_id, rows[0]!.stream, rows.length);
      rows.slice(now).forEach((row, k) => later.push({ row, ms: laterMs[k]! }));
    }
    const held = new Set(later.map(({ row }) => row.id));
    const allowed = chunk.filter((row) => !held.has(row.id));
    if (!this.providers || allowed.length === 0) return { going: allowed, later, tally: null };
    const routed = await this.providers.take(allowed);
    return { going: routed.going, later: [...later, ...routed.later], tally: routed.tally };
  }
}
