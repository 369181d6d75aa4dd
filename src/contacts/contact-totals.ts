import type { Queryable } from '../db/index.ts';
import { countContacts } from './contacts.queries.ts';

type Filters = { search?: string; subscribed?: boolean };

// Counting is exact and cheap below this many contacts; above it, a count of a large project
// (about a second for 1M rows on the embedded database) is reused for a short while, and for a
// while longer it is answered at once while a fresh count runs in the background.
const EXACT_BELOW = 10_000;
const REUSE_MS = 10_000;
const STALE_MS = 60_000;
// A count that took long is reused for longer: at least ten times its own duration, so that
// recounting a project of ten million contacts (seconds of both cores) stays a tenth of the time.
const REUSE_PER_COUNT_MS = 10;
const MAX_ENTRIES = 1_000;

type Entry = { total?: number; countedAt: number; tookMs?: number; pending?: Promise<number> };

/**
 * The `total` of GET /contacts' first page (the API reference (Conventions)). Exact for projects under 10,000
 * matching contacts. For larger ones a count at most 10 s old (or ten times as long as it took) is
 * reused; one up to a minute older is answered while a fresh count is made in the background, so
 * no first page waits on a scan of millions of rows once a count exists; concurrent first pages
 * share one count instead of each scanning (docs/decisions/contacts-and-events.md).
 */
export class ContactTotals {
  private readonly entries = new Map<string, Entry>();

  async total(db: Queryable, projectId: string, filters: Filters): Promise<number> {
    const key = `${projectId}|${filters.search ?? ''}|${filters.subscribed ?? ''}`;
    const entry = this.entries.get(key);
    if (entry?.total !== undefined) {
      const age = Date.now() - entry.countedAt;
      const reuse = Math.max(REUSE_MS, REUSE_PER_COUNT_MS * (entry.tookMs ?? 0));
      if (age < reuse) return entry.total;
      if (age < reuse + STALE_MS) {
        if (!entry.pending) this.count(db, projectId, filters, key, entry).catch(() => {});
        return entry.total;
      }
    }
    if (entry?.pending) return entry.pending;
    return this.count(db, projectId, filters, key, entry);
  }

  /** Counts, shared by whoever asks meanwhile; a large total is remembered with what it took, a small one is not. */
  private async count(db: Queryable, projectId: string, filters: Filters, key: string, previous: Entry | undefined): Promise<number> {
    const started = Date.now();
    const pending = countContacts(db, projectId, filters);
    const entry: Entry = { ...previous, countedAt: previous?.countedAt ?? 0, pending };
    this.remember(key, entry);
    try {
      const total = await pending;
      if (this.entries.get(key) !== entry) return total;
      if (total >= EXACT_BELOW) this.remember(key, { total, countedAt: Date.now(), tookMs: Date.now() - started });
      else this.entries.delete(key);
      return total;
    } catch (error) {
      if (this.entries.get(key) === entry) {
        if (entry.total === undefined) this.entries.delete(key);
        else delete entry.pending;
      }
      throw error;
    }
  }

  private remember(key: string, entry: Entry) {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
  }
}
