import type { Queryable } from '../db/index.ts';
import { countContacts } from './contacts.queries.ts';

type Filters = { search?: string; subscribed?: boolean };

// Counting is exact and cheap below this many contacts; above it, a count of a large project
// (about a second for 1M rows on the embedded database) is reused for a short while.
const EXACT_BELOW = 10_000;
const REUSE_MS = 10_000;
const MAX_ENTRIES = 1_000;

type Entry = { total: number; countedAt: number } | { pending: Promise<number> };

/**
 * The `total` of GET /contacts' first page (the API reference (Conventions)). Exact for projects under 10,000
 * matching contacts; for larger ones a count at most 10 s old is reused, and concurrent first
 * pages share one count instead of each scanning a million rows (docs/decisions/contacts-and-events.md).
 */
export class ContactTotals {
  private readonly entries = new Map<string, Entry>();

  async total(db: Queryable, projectId: string, filters: Filters): Promise<number> {
    const key = `${projectId}|${filters.search ?? ''}|${filters.subscribed ?? ''}`;
    const entry = this.entries.get(key);
    if (entry && 'pending' in entry) return entry.pending;
    if (entry && Date.now() - entry.countedAt < REUSE_MS) return entry.total;
    const pending = countContacts(db, projectId, filters);
    this.entries.set(key, { pending });
    try {
      const total = await pending;
      if (total >= EXACT_BELOW) this.remember(key, { total, countedAt: Date.now() });
      else this.entries.delete(key);
      return total;
    } catch (error) {
      this.entries.delete(key);
      throw error;
    }
  }

  private remember(key: string, entry: Entry) {
    this.entries.delete(key);
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
  }
}
