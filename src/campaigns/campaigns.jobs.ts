import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { advanceCampaigns, kickProgress, PROGRESS_JOB, START_JOB, type StartJobData, startCampaign, startOverdue } from './campaign-sending.service.ts';

export const SWEEP_JOB = 'campaigns.sweep';
type SweepJobData = { atStartUp?: boolean };
const SWEEP_CRON = '* * * * *';
/** A SCHEDULED campaign this late, or a SENDING one whose audience made no progress this long, lost its start job. */
const OVERDUE_SECONDS = 30;

/**
 * Campaign background work (docs/decisions/campaigns.md):
 * - `campaigns.start`: SCHEDULED → SENDING at `scheduledFor` (a delayed job), then the audience's
 *   records, a batch of contacts per transaction. Its queue polls every second, so a delayed start
 *   fires within about a second of its time (a delayed job sends no NOTIFY when it falls due).
 * - `campaigns.progress`: SENDING → SENT once every record has left the queue; re-queues itself
 *   every few seconds while any campaign is SENDING (one statement for all of them).
 * - `campaigns.sweep`: once a minute, the backstop for lost start and progress jobs; at start-up,
 *   without waiting for the grace, so a restarted worker resumes a start it was killed in.
 */
export function campaignsJobs(deps: Deps): JobDefinition<any>[] {
  // Set when the process stops: a start ends after its current batch (the sweep resumes it).
  let stopping = false;
  const isStopping = () => stopping;
  return [
    {
      name: START_JOB,
      queue: { retryLimit: 5, retryDelay: 2, retryBackoff: true, expireInSeconds: 30 * 60 },
      work: { batchSize: 5, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
      stopping: () => {
        stopping = true;
      },
      async handle(jobs: Array<{ data: StartJobData }>) {
        for (const job of jobs) await startCampaign(deps, job.data.projectId, job.data.campaignId, isStopping);
      },
    },
    {
      name: PROGRESS_JOB,
      queue: { policy: 'short', retryLimit: 0, expireInSeconds: 5 * 60 },
      work: { batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
      async handle() {
        if (await advanceCampaigns(deps)) await kickProgress(deps.queue);
      },
    },
    {
      name: SWEEP_JOB,
      queue: { policy: 'short', retryLimit: 0, expireInSeconds: 10 * 60 },
      async handle(jobs: Array<{ data: SweepJobData }>) {
        const grace = jobs.some((job) => job.data?.atStartUp) ? 0 : OVERDUE_SECONDS;
        await startOverdue(deps, grace, isStopping);
        if (await advanceCampaigns(deps)) await kickProgress(deps.queue);
      },
    },
  ];
}

/** At start-up: the sweep's schedule, and one sweep now (work a stopped process left). */
export async function startCampaignJobs(deps: Deps): Promise<void> {
  await deps.queue.schedule(SWEEP_JOB, SWEEP_CRON, { singletonKey: 'cron' });
  const data: SweepJobData = { atStartUp: true };
  await deps.queue.send(SWEEP_JOB, data, { singletonKey: 'now' });
}
