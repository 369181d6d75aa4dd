import type { Db } from '../db/index.ts';
import { applyChunk, lockWatermark, nextEventAt, setWatermark } from './rollup.queries.ts';

/** Events counted per transaction at most, so a backfill of months of events is many short steps. */
const CHUNK_MS = 60 * 60 * 1000;

/** Told which projects' sends, bounces or complaints grew in a run (the reputation check subscribes). */
export type RollupSubscriber = (projectIds: string[]) => Promise<void>;
// Per database, so several servers in one process (the tests) each hear only their own runs.
const subscribers = new WeakMap<Db, RollupSubscriber[]>();

export function onRollup(db: Db, subscriber: RollupSubscriber): void {
  subscribers.set(db, [...(subscribers.get(db) ?? []), subscriber]);
}

/**
 * One step of the rollup: counts the events of at most one CHUNK_MS window past the watermark.
 * Returns `done` once the watermark has reached the safe bound (see lockWatermark).
 */
async function step(db: Db): Promise<{ done: boolean; projects: string[] }> {
  return db.transaction(async (tx) => {
    const { watermark, bound } = await lockWatermark(tx);
    if (watermark && watermark >= bound) return { done: true, projects: [] };
    const next = await nextEventAt(tx, watermark);
    if (!next || next >= bound) {
      // Nothing committed between the watermark and the bound.
      await setWatermark(tx, bound);
      return { done: true, projects: [] };
    }
    const to = new Date(Math.min(bound.getTime(), next.getTime() + CHUNK_MS));
    const projects = await applyChunk(tx, next, to);
    return { done: to.getTime() === bound.getTime(), projects };
  });
}

/**
 * Brings the rollup tables up to date (docs/decisions/analytics.md): reads only the events created
 * since the last run, through the per-project created_at index, and never touches the insert path
 * of /v1/track. Stops after `budgetMs` (a backfill continues in the next run).
 */
export async function runRollup(db: Db, budgetMs: number): Promise<{ caughtUp: boolean }> {
  const started = Date.now();
  const touched = new Set<string>();
  let caughtUp = false;
  while (!caughtUp && Date.now() - started < budgetMs) {
    const { done, projects } = await step(db);
    for (const id of projects) touched.add(id);
    caughtUp = done;
  }
  if (touched.size) for (const subscriber of subscribers.get(db) ?? []) await subscriber([...touched]);
  return { caughtUp };
}
