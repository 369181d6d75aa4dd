import type { Queryable } from '../db/index.ts';
import type { EmailRow } from '../emails/emails.queries.ts';
import { type ProviderKey, type RateLimits, recordProviderOutcomes, takeProviderTokens } from './provider-rates.queries.ts';
import type { Provider, ProviderLookup } from './providers.ts';

/** A 421 (service not available) or an RFC 3463 4.7.x (delivery not authorised: rate, reputation) deferral. */
export function isProviderDeferral(error: string): boolean {
  return /^SMTP 421\b/.test(error) || /\b4\.7\.\d{1,3}\b/.test(error);
}

const keyOf = (key: ProviderKey) => `${key.projectId} ${key.stream} ${key.provider}`;

/** How long a rate seen at its ceiling is trusted without asking the database again. */
const AT_CEILING_MS = 1_000;

/**
 * Per-provider throttles (docs/streams.md): records of a claimed chunk leave at the rate their
 * project's stream has towards the recipient's provider; the rest go back to the queue with a time
 * to try again (never dropped, never counted as attempts). Deferrals halve that rate, deliveries
 * raise it slowly (provider-rates.queries.ts), for every worker at once (the state is in the database).
 */
export class ProviderThrottle {
  /**
   * Keys whose rate this process last saw at the ceiling, until when: a provider that never defers
   * (nearly all of them, nearly always) costs no statement per chunk. Another worker's deferral
   * lowers the rate in the database, and this process sees it within AT_CEILING_MS.
   */
  private readonly atCeiling = new Map<string, number>();
  constructor(
    private readonly db: Queryable,
    private readonly lookup: ProviderLookup,
    private readonly limits: RateLimits,
  ) {}

  /** The records that may leave now, and for the others how many milliseconds until they may. */
  async take(rows: EmailRow[]): Promise<{ going: EmailRow[]; later: Array<{ row: EmailRow; ms: number }>; tally: ProviderTally }> {
    const providers = await Promise.all(rows.map((row) => this.lookup.of(row.to_address)));
    const groups = new Map<string, { key: ProviderKey; rows: EmailRow[] }>();
    rows.forEach((row, i) => {
      const key = { projectId: row.project_id, stream: row.stream, provider: providers[i]! };
      const group = groups.get(keyOf(key)) ?? { key, rows: [] };
      group.rows.push(row);
      groups.set(keyOf(key), group);
    });
    const held = new Map<string, number>();
    const tally = new ProviderTally(this.db, this.limits, this.atCeiling);
    const now = Date.now();
    for (const [k, { key, rows: group }] of groups) {
      if ((this.atCeiling.get(k) ?? 0) > now) {
        for (const row of group) tally.route(row.id, key);
        continue;
      }
      const { granted, tokens, rate } = await takeProviderTokens(this.db, key, group.length, this.limits.maxPerSecond);
      if (rate >= this.limits.maxPerSecond && granted === group.length) this.atCeiling.set(k, now + AT_CEILING_MS);
      else this.atCeiling.delete(k);
      group.slice(granted).forEach((row, k) => held.set(row.id, Math.ceil(((k + 1 - tokens) / rate) * 1000)));
      for (const row of group.slice(0, granted)) tally.route(row.id, key);
    }
    return {
      going: rows.filter((row) => !held.has(row.id)),
      later: rows.filter((row) => held.has(row.id)).map((row) => ({ row, ms: held.get(row.id)! })),
      tally,
    };
  }
}

/** The outcomes of one chunk's messages per provider key, written once the chunk is done. */
export class ProviderTally {
  private readonly keys = new Map<string, ProviderKey>();
  private readonly counts = new Map<string, { key: ProviderKey; delivered: number; deferred: number }>();
  constructor(
    private readonly db: Queryable,
    private readonly limits: RateLimits,
    private readonly atCeiling: Map<string, number>,
  ) {}

  route(id: string, key: ProviderKey): void {
    this.keys.set(id, key);
  }

  /** One message's answer: delivered, a provider deferral, or neither (a bounce, another failure). */
  note(id: string, answer: 'delivered' | 'deferred' | 'other'): void {
    const key = this.keys.get(id);
    if (!key || answer === 'other') return;
    const count = this.counts.get(keyOf(key)) ?? { key, delivered: 0, deferred: 0 };
    count[answer]++;
    this.counts.set(keyOf(key), count);
  }

  async flush(): Promise<void> {
    const counts = [...this.counts.values()];
    this.counts.clear();
    for (const { key, ...outcome } of counts) {
      // Deliveries cannot raise a rate at its ceiling: nothing to write.
      if (outcome.deferred === 0 && (this.atCeiling.get(keyOf(key)) ?? 0) > Date.now()) continue;
      // A deferral lowers it: the next chunk asks the database.
      this.atCeiling.delete(keyOf(key));
      await recordProviderOutcomes(this.db, key, outcome, this.limits);
    }
  }
}

export type { Provider };
