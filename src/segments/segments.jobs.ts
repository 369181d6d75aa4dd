import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { narrowCopyJobs } from './narrow-copy.ts';
import { refreshDueSegments } from './segments.service.ts';

export const SEGMENT_REFRESH_JOB = 'segments.refresh';
const SINGLETON = { singletonKey: SEGMENT_REFRESH_JOB };
const WATCHDOG_CRON = '* * * * *';

/**
 * The background refresh of cached memberCounts (docs/architecture.md SEGMENT_REFRESH_INTERVAL_SECONDS),
 * a chain like the domain re-check (domains.jobs.ts): each run queues the next one `interval`
 * seconds ahead, then recounts the segments whose count is older than the interval. The `stately`
 * policy keeps one chain across every process; a once-a-minute watchdog restarts a broken chain.
 */
export function segmentsJobs(deps: Deps): JobDefinition[] {
  const interval = deps.config.segmentRefreshIntervalSeconds;
  return [
    {
      name: SEGMENT_REFRESH_JOB,
      // pg-boss refuses an expiration beyond 24 hours.
      queue: { policy: 'stately', notify: false, retryLimit: 0, expireInSeconds: Math.min(24 * 3600, Math.max(15 * 60, interval * 2)) },
      work: { batchSize: 1, pollingIntervalSeconds: Math.min(30, Math.max(1, Math.floor(interval / 5))) },
      async handle() {
        await deps.queue.send(SEGMENT_REFRESH_JOB, {}, { ...SINGLETON, startAfter: interval });
        const counted = await refreshDueSegments(deps, interval);
        if (counted) deps.log.debug({ counted }, 'segment counts refreshed');
      },
    },
    ...(narrowCopyJobs(deps) as JobDefinition[]),
  ];
}

/** Called at start-up: starts the chain if none is queued, and the watchdog schedule. */
export async function startSegmentRefresh(deps: Deps): Promise<void> {
  await deps.queue.send(SEGMENT_REFRESH_JOB, {}, SINGLETON);
  await deps.queue.schedule(SEGMENT_REFRESH_JOB, WATCHDOG_CRON, SINGLETON);
}
