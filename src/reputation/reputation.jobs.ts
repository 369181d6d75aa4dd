import type { Deps, RollupSubscriber } from '../deps.ts';
import { checkReputation } from './reputation.service.ts';

/**
 * Reputation has no queue of its own: it is checked after every rollup run (a few seconds behind
 * delivery and the SES webhook) for the projects whose bounces or complaints grew in it. Wired in
 * modules.ts as the security capability's `rollups`.
 */
export function reputationCheck(deps: Deps): RollupSubscriber {
  return (projectIds) => checkReputation(deps, projectIds);
}
