import type { Queryable } from '../db/index.ts';
import { findPausedMarketing } from './reputation.queries.ts';
import { MARKETING_PAUSED } from './reputation.service.ts';

/** How long a held record waits before it is looked at again, if nobody resumes its project's marketing mail. */
const HOLD_MS = 24 * 60 * 60 * 1000;

type Mail = { project_id: string; stream: 'transactional' | 'marketing' };

/**
 * Marketing mail of a project whose marketing AUTO_DISABLE paused (docs/decisions/reputation.md):
 * its records go back to the queue with the reason and no attempt counted, until an OWNER resumes
 * it (which makes them due at once) or a day has passed. Transactional mail is never held.
 */
export class MarketingPause {
  constructor(private readonly db: Queryable) {}

  async hold<T extends Mail>(chunk: T[]): Promise<{ going: T[]; later: Array<{ row: T; ms: number; error: string }> }> {
    const marketing = chunk.filter((row) => row.stream === 'marketing');
    if (marketing.length === 0) return { going: chunk, later: [] };
    const paused = await findPausedMarketing(this.db, [...new Set(marketing.map((row) => row.project_id))]);
    if (paused.size === 0) return { going: chunk, later: [] };
    const held = (row: T) => row.stream === 'marketing' && paused.has(row.project_id);
    return {
      going: chunk.filter((row) => !held(row)),
      later: chunk.filter(held).map((row) => ({ row, ms: HOLD_MS, error: `${MARKETING_PAUSED}${paused.get(row.project_id)}` })),
    };
  }
}
