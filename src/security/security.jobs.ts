import { onRollup } from '../analytics/rollup.service.ts';
import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { checkReputation } from './security.service.ts';

/**
 * Reputation has no queue of its own: it is checked after every rollup run (a few seconds behind
 * delivery and the SES webhook) for the projects whose bounces or complaints grew in it.
 */
export function securityJobs(deps: Deps): JobDefinition[] {
  onRollup(deps.db, (projectIds) => checkReputation(deps, projectIds));
  return [];
}
