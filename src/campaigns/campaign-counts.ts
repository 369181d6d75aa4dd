import type { Queryable } from '../db/index.ts';
import { countRecords } from './campaigns.queries.ts';
import type { CampaignCounts, CampaignFields, CampaignRow } from './campaigns.schemas.ts';

// A large campaign's count is reused at least this long, and at least ten times as long as it
// took, so that a progress page polling every second (or several at once) spends a tenth of a
// core at most on it: at a million records one count takes about half a second on PostgreSQL.
const REUSE_MS = 2_000;
const REUSE_PER_COUNT_MS = 10;
// For a minute past that, a read is answered with the last count while a fresh one runs.
const STALE_MS = 60_000;
const MAX_ENTRIES = 1_000;

const NONE: CampaignCounts = {
  queued_count: 0,
  sent_count: 0,
  delivered_count: 0,
  opened_count: 0,
  clicked_count: 0,
  bounced_count: 0,
  complained_count: 0,
  failed_count: 0,
  suppressed_count: 0,
};

type Entry = { counts?: CampaignCounts; status: string; countedAt: number; tookMs?: number; pending?: Promise<CampaignCounts> };

/**
 * The counters of campaigns as responses show them (docs/decisions/campaigns.md, "Counters at
 * scale"). A campaign of fewer than `exactBelow` recipients is counted on every read, all of a
 * page's in one statement. A larger one is counted at most every few seconds, concurrent readers
 * sharing one count; a count made while the campaign had another status is never reused, so the
 * first read that sees SENT also sees every record sent.
 */
export class CampaignCounter {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly exactBelow: number) {}

  async of(db: Queryable, projectId: string, rows: CampaignFields[]): Promise<CampaignRow[]> {
    const small = rows.filter((row) => row.total_recipients < this.exactBelow).map((row) => row.id);
    const [exact, large] = await Promise.all([
      small.length ? countRecords(db, projectId, small) : new Map<string, CampaignCounts>(),
      Promise.all(rows.filter((row) => row.total_recipients >= this.exactBelow).map(async (row) => [row.id, await this.large(db, projectId, row)] as const)),
    ]);
    const counted = new Map([...exact, ...large]);
    return rows.map((row) => ({ ...row, ...(counted.get(row.id) ?? NONE) }));
  }

  async one(db: Queryable, projectId: string, row: CampaignFields): Promise<CampaignRow> {
    return (await this.of(db, projectId, [row]))[0]!;
  }

  private async large(db: Queryable, projectId: string, row: CampaignFields): Promise<CampaignCounts> {
    const key = `${projectId}|${row.id}`;
    const entry = this.entries.get(key);
    if (entry && entry.status === row.status) {
      if (entry.counts) {
        const age = Date.now() - entry.countedAt;
        const reuse = Math.max(REUSE_MS, REUSE_PER_COUNT_MS * (entry.tookMs ?? 0));
        if (age < reuse) return entry.counts;
        if (age < reuse + STALE_MS) {
          if (!entry.pending) this.count(db, projectId, row, key, entry).catch(() => {});
          return entry.counts;
        }
      }
      if (entry.pending) return entry.pending;
    }
    return this.count(db, projectId, row, key, entry?.status === row.status ? entry : undefined);
  }

  /** Counts one campaign, shared by whoever asks meanwhile, and remembers what it took. */
  private async count(db: Queryable, projectId: string, row: CampaignFields, key: string, previous: Entry | undefined): Promise<CampaignCounts> {
    const started = Date.now();
    const pending = countRecords(db, projectId, [row.id]).then((found) => found.get(row.id) ?? NONE);
    const entry: Entry = { ...previous, status: row.status, countedAt: previous?.countedAt ?? 0, pending };
    this.remember(key, entry);
    try {
      const counts = await pending;
      if (this.entries.get(key) === entry) this.remember(key, { counts, status: row.status, countedAt: started, tookMs: Date.now() - started });
      return counts;
    } catch (error) {
      if (this.entries.get(key) === entry) {
        if (entry.counts === undefined) this.entries.delete(key);
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
