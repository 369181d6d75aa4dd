import type { Db } from '../db/index.ts';
import type { RollupSubscriber } from '../deps.ts';
import { applyChunk, lockWatermark, nextEventAt, setWatermark } from './rollup.queries.ts';

/**
 * The window of events one transaction counts: adapted to the event rate, so a backfill of months
 * takes a few hundred steps of about TARGET_EVENTS each and a quiet stretch is crossed in one.
 */
const FIRST_CHUNK_MS = 60 * 60 * 1000;
const MAX_CHUNK_MS = 31 * 24 * 60 * 60 * 1000;
const TARGET_EVENTS = 50_000;

/**
 * One step of the rollup: counts the events of at most `chunkMs` past the watermark (past the next
 * event, so empty stretches cost nothing). `done` once the watermark has reached the safe bound
 * (see lockWatermark).
 */
async function step(db: Db, chunkMs: number): Promise<{ done: boolean; events: number; projects: string[] }> {
  return db.transaction(async (tx) => {
    const { watermark, bound } = await lockWatermark(tx);
    if (watermark && watermark >= bound) return { done: true, events: 0, projects: [] };
    const next = await nextEventAt(tx, watermark);
    if (!next || next >= bound) {
      // Nothing committed between the watermark and the bound.
      await setWatermark(tx, bound);
      return { done: true, events: 0, projects: [] };
    }
    const to = new Date(Math.min(bound.getTime(), next.getTime() + chunkMs));
    const counted = await applyChunk(tx, next, to);
    return { done: to.getTime() === bound.getTime(), ...counted };
  });
}

/**
 * Brings the rollup tables up to date (docs/decisions/analytics.md): reads only the events created
 * since the last run, through the per-project created_at index, and never touches the insert path
 * of /v1/track. Stops after `budgetMs` (a backfill continues in the next run).
 */
export async function runRollup(db: Db, budgetMs: number, subscribers: readonly RollupSubscriber[]): Promise<{ caughtUp: boolean }> {
  const started = Date.now();
  const touched = new Set<string>();
  let caughtUp = false;
  let chunkMs = FIRST_CHUNK_MS;
  while (!caughtUp && Date.now() - started < budgetMs) {
    const { done, events, projects } = await step(db, chunkMs);
    for (const id of projects) touched.add(id);
    caughtUp = done;
    // Aim the next window at TARGET_EVENTS from this one's rate (at most 4× wider or 4× narrower).
    const scale = events > 0 ? TARGET_EVENTS / events : 4;
    chunkMs = Math.round(Math.min(MAX_CHUNK_MS, Math.max(60_000, chunkMs * Math.min(4, Math.max(0.25, scale)))));
  }
  if (touched.size) for (const subscriber of subscribers) await subscriber([...touched]);
  return { caughtUp };
}
