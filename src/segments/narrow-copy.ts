import { type ConditionTree, filtersOf, parseField } from '../conditions/index.ts';
import type { Db } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { assignSlots, backfillBatch, markSlotsReady, unreadySlots } from './narrow-copy.queries.ts';

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
type CopyJob = { projectId: string; after: string | null; slots: number[] };

/** The data keys a tree names, in the order it names them. */
function dataKeys(tree: ConditionTree): string[] {
  const keys = new Set<string>();
  for (const { filter } of filtersOf(tree)) {
    const ref = parseField(filter.field);
    if (ref?.kind === 'data') keys.add(ref.key);
  }
  return [...keys];
}

/**
 * Copies batches from `after` (null: the first contact) to the end, then marks `slots` ready; does
 * nothing when another run has made them ready already.
 */
async function fill(db: Db, job: CopyJob): Promise<void> {
  const slots = await unreadySlots(db, job.projectId, job.slots);
  if (slots.length === 0) return;
  let after = job.after;
  do {
    const batch = await db.transaction((tx) => backfillBatch(tx, job.projectId, after, BACKFILL_BATCH));
    after = batch.copied < BACKFILL_BATCH ? null : batch.last;
  } while (after !== null);
  await markSlotsReady(db, job.projectId, slots);
}

/** Gives `keys` slots and fills them to the end before answering (the bench, with its seed). */
export async function fillNarrowCopy(db: Db, projectId: string, keys: readonly string[]): Promise<void> {
  const { slots } = await db.transaction((tx) => assignSlots(tx, projectId, keys));
  const pending = slots.filter((slot) => !slot.ready).map((slot) => slot.slot);
  if (pending.length > 0) await fill(db, { projectId, after: null, slots: pending });
}

/**
 * Called before a dynamic segment's condition is counted (create, update, the background refresh).
 * Slots given now get their first batch at once and the job for the rest; slots still filling
 * from before get the job only (one queued per project beside a running one: `stately`).
 */
export async function prepareNarrowCopy(deps: CopyDeps, projectId: string, tree: ConditionTree): Promise<void> {
  if (deps.config.databaseDistribution === 'citus') return;
  const keys = dataKeys(tree);
  if (keys.length === 0) return;
  try {
    const { slots, added } = await deps.db.transaction((tx) => assignSlots(tx, projectId, keys));
    const pending = slots.filter((slot) => !slot.ready).map((slot) => slot.slot);
    if (pending.length === 0) return;
    const job = (after: string | null) => deps.queue.send(NARROW_COPY_JOB, { projectId, after, slots: pending } satisfies CopyJob, { singletonKey: projectId });
    if (added === 0) return void (await job(null));
    const first = await deps.db.transaction((tx) => backfillBatch(tx, projectId, null, BACKFILL_BATCH));
    if (first.copied < BACKFILL_BATCH || first.last === null) await markSlotsReady(deps.db, projectId, pending);
    else await job(first.last);
  } catch (error) {
    // The copy only speeds counts up: without it they read contacts.data, and the next save retries.
    deps.log.warn({ err: error, projectId }, 'narrow copy: slots not filled');
  }
}

export function narrowCopyJobs(deps: CopyDeps): JobDefinition<CopyJob>[] {
  return [
    {
      name: NARROW_COPY_JOB,
      queue: { policy: 'stately', notify: true, retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 60 * 60 },
      work: { batchSize: 1 },
      async handle(jobs) {
        for (const job of jobs) await fill(deps.db, job.data);
      },
    },
  ];
}
