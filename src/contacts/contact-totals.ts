import type { Queryable } from '../db/index.ts';
import { ReusedValues } from '../db/reused-values.ts';
import { countContacts } from './contacts.queries.ts';

type Filters = { search?: string; subscribed?: boolean };

// Counting is exact and cheap below this many contacts; above it, a count of a large project
// (about a second for 1M rows on the embedded database) is reused for at least 10 s, and at least
// ten times as long as it took (so recounting ten million contacts stays a tenth of the time); for
// a minute more it is answered at once while a fresh count runs in the background.
const EXACT_BELOW = 10_000;

/**
 * The `total` of GET /contacts' first page (the API reference (Conventions)). Exact for projects
 * under 10,000 matching contacts; for larger ones reused as above, so no first page waits on a scan
 * of millions of rows once a count exists, and concurrent first pages share one count instead of
 * each scanning (docs/decisions/contacts-and-events.md).
 */
export class ContactTotals {
  private readonly counts = new ReusedValues<number>({ reuseMs: 10_000, reusePerTookMs: 10, staleMs: 60_000 });

  total(db: Queryable, projectId: string, filters: Filters): Promise<number> {
    const key = `${projectId}|${filters.search ?? ''}|${filters.subscribed ?? ''}`;
    return this.counts.get(
      key,
      () => countContacts(db, projectId, filters),
      (total) => total >= EXACT_BELOW,
    );
  }
}
