import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { workEach } from './contact-bulk.jobs.ts';
import { IMPORT_JOB, type ImportJobData, runImportJob } from './contact-import.service.ts';

const RETRY_LIMIT = 3;

export function contactImportJobs(deps: Deps): JobDefinition<ImportJobData>[] {
  return [
    {
      name: IMPORT_JOB,
      queue: { retryLimit: RETRY_LIMIT, retryDelay: 2, retryBackoff: true, expireInSeconds: 15 * 60 },
      // One import at a time per worker: each is thousands of rows of set-based upserts.
      work: { batchSize: 1 },
      handle: (jobs) => workEach(deps, jobs, RETRY_LIMIT, (data) => runImportJob(deps, data)),
    },
  ];
}
