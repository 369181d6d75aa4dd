import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { computeFieldStats, REFRESH_FIELD_STATS_JOB } from './contact-fields.service.ts';

/** Background refresh of the cached GET /contacts/fields answer, one project per job. */
export function contactFieldsJobs(deps: Pick<Deps, 'db'>): JobDefinition<{ projectId: string }>[] {
  return [
    {
      name: REFRESH_FIELD_STATS_JOB,
      // `short`: at most one refresh waits per project (singletonKey = project id).
      queue: { policy: 'short', retryLimit: 2, retryDelay: 10, expireInSeconds: 15 * 60 },
      handle: async (jobs) => {
        for (const projectId of new Set(jobs.map((job) => job.data.projectId))) await computeFieldStats(deps.db, projectId);
      },
    },
  ];
}
