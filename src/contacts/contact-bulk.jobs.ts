import type { Deps } from '../deps.ts';
import type { Job, JobDefinition } from '../jobs/queue.ts';
import { BULK_JOB, type BulkJobData, failJob, runBulkJob } from './contact-bulk.service.ts';

const RETRY_LIMIT = 3;

/**
 * Runs each job of a batch. A failure is rethrown (pg-boss retries the batch; finished jobs are
 * skipped on the retry) until the job's retries are spent; then the job is marked failed so its
 * poller sees an end instead of `running` forever.
 */
export async function workEach<T extends { projectId: string; jobId: string }>(
  deps: Pick<Deps, 'db' | 'log'>,
  jobs: Job<T>[],
  retryLimit: number,
  run: (data: T) => Promise<void>,
) {
  let retry: unknown;
  for (const job of jobs) {
    try {
      await run(job.data);
    } catch (error) {
      deps.log.error({ err: error, jobId: job.data.jobId, attempt: job.retryCount }, 'contact job failed');
      if (job.retryCount >= retryLimit) await failJob(deps, job.data.projectId, job.data.jobId, 'The job failed repeatedly and was abandoned; see the server log.');
      else retry ??= error;
    }
  }
  if (retry) throw retry;
}

export function contactBulkJobs(deps: Deps): JobDefinition<BulkJobData>[] {
  return [
    {
      name: BULK_JOB,
      queue: { retryLimit: RETRY_LIMIT, retryDelay: 2, retryBackoff: true, expireInSeconds: 10 * 60 },
      handle: (jobs) => workEach(deps, jobs, RETRY_LIMIT, (data) => runBulkJob(deps, data)),
    },
  ];
}
