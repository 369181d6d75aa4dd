import type { Resolver } from 'node:dns/promises';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/index.ts';
import type { WarmupClock } from '../deps.ts';
import { Warmup } from '../domains/warmup.ts';
import type { EmailRow } from '../emails/emails.queries.ts';
import { MarketingPause } from '../reputation/marketing-pause.ts';
import { type ProviderTally, ProviderThrottle } from './provider-throttle.ts';
import { ProviderLookup } from './providers.ts';
import { SendRate } from './send-rate.ts';

export type Paced = {
  /** The records that may leave now, in the chunk's order. */
  going: EmailRow[];
  /** The others, each with how many milliseconds until it may: back to the queue, not an attempt; `error` says why when it waits long (a warm-up, a pause). */
  later: Array<{ row: EmailRow; ms: number; error?: string }>;
  /** Where the going records' answers are noted for their providers' rates (none without throttles). */
  tally: ProviderTally | null;
};

/**
 * How fast a claimed chunk may leave: marketing mail of a project whose marketing is paused for its
 * rates is held (docs/decisions/reputation.md); then, in order, the warm-up caps of the sending
 * domains on marketing mail, the project's SEND_RATE_PER_SECOND and the rate of its stream towards
 * each recipient's provider (docs/streams.md). One per worker process; the state is in the
 * database, shared by every worker.
 */
export class Pacing {
  private readonly pause: MarketingPause;
  private readonly warmup: Warmup;
  private readonly rate: SendRate;
  private readonly providers: ProviderThrottle | null;

  /** `throttleProviders`: false when mail goes to the outbox (no receiver to defer it). */
  constructor(db: Queryable, config: Pick<Config, 'sendRatePerSecond' | 'providerRate'>, resolver: () => Promise<Resolver>, throttleProviders: boolean, clock: WarmupClock) {
    this.pause = new MarketingPause(db);
    this.warmup = new Warmup(db, clock);
    this.rate = new SendRate(db, config.sendRatePerSecond);
    this.providers = throttleProviders ? new ProviderThrottle(db, new ProviderLookup(resolver), config.providerRate) : null;
  }

  async pace(chunk: EmailRow[]): Promise<Paced> {
    // Marketing mail paused for its rates is held (src/reputation/marketing-pause.ts).
    const held = await this.pause.hold(chunk);
    // A record over its domain's cap waits for the next day without taking a token of any rate.
    const warm = await this.warmup.take(held.going);
    const paced = await this.rates(warm.going);
    // What a rate held back leaves later and counts against the cap then.
    if (warm.taken.length && paced.later.length) await this.warmup.giveBack(warm.taken, new Set(paced.later.map(({ row }) => row.id)));
    return { ...paced, later: [...held.later, ...warm.later, ...paced.later] };
  }

  private async rates(chunk: EmailRow[]): Promise<Paced> {
    const groups = new Map<string, EmailRow[]>();
    for (const row of chunk) {
      const key = `${row.project_id} ${row.stream}`;
      const group = groups.get(key);
      if (group) group.push(row);
      else groups.set(key, [row]);
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
