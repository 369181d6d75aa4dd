import { type ConditionTree, filtersOf, parseField } from '../conditions/index.ts';
import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { assignSlots, backfillBatch, markSlotsReady } from './narrow-copy.queries.ts';

/**
 * The narrow copy of the data keys segments read (docs/decisions/segments.md, "The narrow copy"):
 * a dynamic segment's keys get slots when it is saved; a new slot is filled for the contacts
 * already there, the first batch at once (a project of up to one batch is ready before its first
 * count), the rest by a background job. Counts read a slot only once it is ready. Not kept on
 * Citus, whose counts read contacts.data.
 */

export const NARROW_COPY_JOB = 'segments.narrow-copy';
export const BACKFILL_BATCH = 50_000;

type CopyDeps = Pick<Deps, 'db' | 'queue' | 'config' | 'log'>;
type CopyJob = { projectId: string; after: string; slots: number[] };

/** The data keys a tree names, in the order it names them. */
function dataKeys(tree: ConditionTree): string[] {
  const keys = new Set<string>();
  for (const { filter } of filtersOf(tree)) {
    const ref = parseField(filter.field);
    if (ref?.kind === 'data') keys.add(ref.key);
  }
  return [...keys];
}

/** Copies batches from `after` to the end, then marks `slots` ready. */
async function fill(deps: CopyDeps, job: CopyJob): Promise<void> {
  let after: string | null = job.after;
  while (after !== null) {
    const batch = await deps.db.transaction((tx) => backfillBatch(tx, job.projectId, after, BACKFILL_BATCH));
    after = batch.copied < BACKFILL_BATCH ? null : batch.last;
  }
  await markSlotsReady(deps.db, job.projectId, job.slots);
}

/** Called before a dynamic segment's condition is counted (create, update). */
export async function prepareNarrowCopy(deps: CopyDeps, projectId: string, tree: ConditionTree): Promise<void> {
  if (deps.config.databaseDistribution === 'citus') return;
  const keys = dataKeys(tree);
  if (keys.length === 0) return;
  try {
    const slots = await deps.db.transaction((tx) => assignSlots(tx, projectId, keys));
    const pending = slots.filter((slot) => !slot.ready).map((slot) => slot.slot);
    if (pending.length === 0) return;
    const first = await deps.db.transaction((tx) => backfillBatch(tx, projectId, null, BACKFILL_BATCH));
    if (first.copied < BACKFILL_BATCH || first.last === null) await markSlotsReady(deps.db, projectId, pending);
    else await deps.queue.send(NARROW_COPY_JOB, { projectId, after: first.last, slots: pending } satisfies CopyJob);
  } catch (error) {
    // The copy only speeds counts up: without it they read contacts.data, and the next save retries.
    deps.log.warn({ err: error, projectId }, 'narrow copy: slots not filled');
  }
}

export function narrowCopyJobs(deps: CopyDeps): JobDefinition<CopyJob>[] {
  return [
    {
      name: NARROW_COPY_JOB,
      queue: { policy: 'standard', notify: true, retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 * 60 },
      work: { batchSize: 1 },
      async handle(jobs) {
        for (const job of jobs) await fill(deps, job.data);
      },
    },
  ];
}
