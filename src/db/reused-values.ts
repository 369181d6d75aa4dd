/**
 * How long a value that is costly to compute (a count over millions of rows) is reused: at least
 * `reuseMs`, and at least `reusePerTookMs` times as long as computing it took, so that recomputing
 * stays a small share of the time however slow it gets; for `staleMs` past that it is still
 * answered at once while a fresh one is computed in the background.
 */
export type ReuseWindow = { reuseMs: number; reusePerTookMs: number; staleMs: number };

type Entry<T> = { value?: T; computedAt: number; tookMs: number; pending?: Promise<T> };

const MAX_ENTRIES = 1_000;

/**
 * Values computed on demand and reused within a window (`ReuseWindow`), by key. Concurrent readers
 * of one key share one computation; a value `keep` refuses (a small count, exact and cheap every
 * time) is returned but not remembered. At most a thousand keys are kept, the oldest dropped
 * first. Used by the contact list's total and the counters of large campaigns
 * (docs/decisions/contacts-and-events.md, docs/decisions/campaigns.md).
 */
export class ReusedValues<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly window: ReuseWindow) {}

  async get(key: string, compute: () => Promise<T>, keep: (value: T) => boolean = () => true): Promise<T> {
    const entry = this.entries.get(key);
    if (entry?.value !== undefined) {
      const age = Date.now() - entry.computedAt;
      const reuse = Math.max(this.window.reuseMs, this.window.reusePerTookMs * entry.tookMs);
      if (age < reuse) return entry.value;
      if (age < reuse + this.window.staleMs) {
        if (!entry.pending) this.compute(key, compute, keep, entry).catch(() => {});
        return entry.value;
      }
    }
    if (entry?.pending) return entry.pending;
    return this.compute(key, compute, keep, entry);
  }

  /** Computes once for whoever asks meanwhile; the previous value, if any, stays readable until then. */
  private async compute(key: string, compute: () => Promise<T>, keep: (value: T) => boolean, previous: Entry<T> | undefined): Promise<T> {
    const started = Date.now();
    const pending = compute();
    const entry: Entry<T> = { ...(previous ?? { computedAt: 0, tookMs: 0 }), pending };
    this.remember(key, entry);
    try {
      const value = await pending;
      if (this.entries.get(key) === entry) {
        if (keep(value)) this.remember(key, { value, computedAt: started, tookMs: Date.now() - started });
        else this.entries.delete(key);
      }
      return value;
    } catch (error) {
      if (this.entries.get(key) === entry) {
        if (entry.value === undefined) this.entries.delete(key);
        else delete entry.pending;
      }
      throw error;
    }
  }

  private remember(key: string, entry: Entry<T>) {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
  }
}
