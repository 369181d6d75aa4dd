import type { Queryable } from '../db/index.ts';
import { ReusedValues } from '../db/reused-values.ts';
import { countRecords } from './campaigns.queries.ts';
import type { CampaignCounts, CampaignFields, CampaignRow } from './campaigns.schemas.ts';

// A large campaign's count is reused at least 2 s, and at least ten times as long as it took, so
// that a progress page polling every second (or several at once) spends a tenth of a core at most
// on it: at a million records one count takes about half a second on PostgreSQL. For a minute past
// that, a read is answered with the last count while a fresh one runs.
const REUSE = { reuseMs: 2_000, reusePerTookMs: 10, staleMs: 60_000 };

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

/**
 * The counters of campaigns as responses show them (docs/decisions/campaigns.md, "Counters at
 * scale"). A campaign of fewer than `exactBelow` recipients is counted on every read, all of a
 * page's in one statement. A larger one is counted at most every few seconds, concurrent readers
 * sharing one count; a count made while the campaign had another status is never reused, so the
 * first read that sees SENT also sees every record sent.
 */
export class CampaignCounter {
  private readonly large = new ReusedValues<CampaignCounts>(REUSE);

  constructor(private readonly exactBelow: number) {}

  async of(db: Queryable, projectId: string, rows: CampaignFields[]): Promise<CampaignRow[]> {
    const small = rows.filter((row) => row.total_recipients < this.exactBelow).map((row) => row.id);
    const [exact, large] = await Promise.all([
      small.length ? countRecords(db, projectId, small) : new Map<string, CampaignCounts>(),
      Promise.all(rows.filter((row) => row.total_recipients >= this.exactBelow).map(async (row) => [row.id, await this.countLarge(db, projectId, row)] as const)),
    ]);
    const counted = new Map([...exact, ...large]);
    return rows.map((row) => ({ ...row, ...(counted.get(row.id) ?? NONE) }));
  }

  async one(db: Queryable, projectId: string, row: CampaignFields): Promise<CampaignRow> {
    return (await this.of(db, projectId, [row]))[0]!;
  }

  /** A large campaign's counts, reused by campaign and status: a count made under another status is never read. */
  private countLarge(db: Queryable, projectId: string, row: CampaignFields): Promise<CampaignCounts> {
    return this.large.get(`${projectId}|${row.id}|${row.status}`, async () => (await countRecords(db, projectId, [row.id])).get(row.id) ?? NONE);
  }
}
