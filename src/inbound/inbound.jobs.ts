import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { deleteExpiredInbound } from './inbound.queries.ts';

export const INBOUND_RETENTION_JOB = 'inbound.retention';
// Hourly, away from the other hourly schedules.
const RETENTION_CRON = '41 * * * *';
// Bounded deletes keep each statement short (PGlite runs on the event loop); rows hold whole messages.
const BATCH = 500;

/** The retention of received mail (INBOUND_RETENTION_DAYS, docs/inbound.md): older messages are removed. */
export function inboundJobs(deps: Deps): JobDefinition[] {
  return [
    {
      name: INBOUND_RETENTION_JOB,
      queue: { retryLimit: 2, expireInSeconds: 10 * 60 },
      work: { batchSize: 1 },
      async handle() {
        const removed = await removeExpiredInbound(deps);
        if (removed) deps.log.info({ removed }, 'inbound messages past their retention removed');
      },
    },
  ];
}

/** Removes every message older than the retention, in batches; returns how many. */
export async function removeExpiredInbound(deps: Pick<Deps, 'db' | 'config'>): Promise<number> {
  let total = 0;
  let deleted: number;
  do {
    deleted = await deleteExpiredInbound(deps.db, deps.config.smtp.inboundRetentionDays, BATCH);
    total += deleted;
  } while (deleted === BATCH);
  return total;
}

/** At start-up: the hourly schedule, kept in the database (any process writing it serves every worker). */
export async function startInboundJobs(deps: Deps): Promise<void> {
  await deps.queue.schedule(INBOUND_RETENTION_JOB, RETENTION_CRON);
}
