import { listSuspensions } from '../audit/audit.queries.ts';
import type { Deps } from '../deps.ts';
import type { Stream } from '../emails/emails.queries.ts';
import { notFound } from '../errors.ts';
import { findReputationState, reputationCounts, streamCounts } from '../reputation/reputation.queries.ts';
import { assess, THRESHOLDS } from '../reputation/reputation.service.ts';
import { requireRole } from './projects.service.ts';

const DAY_MS = 24 * 3600 * 1000;

/** GET /users/@me/projects/{id}/security and /projects/{id}/security: any member. */
export async function projectSecurity(deps: Pick<Deps, 'db' | 'config'>, projectId: string, userId: string) {
  await requireRole(deps, projectId, userId, ['OWNER', 'ADMIN', 'MEMBER'], 'read the security state');
  const state = await findReputationState(deps.db, projectId);
  if (!state) throw notFound('Project');
  const last7Days = assess(await reputationCounts(deps.db, projectId, new Date(Date.now() - 7 * DAY_MS)));
  const allTime = assess(await reputationCounts(deps.db, projectId, null));
  const [streams7, streamsAll] = await Promise.all([streamCounts(deps.db, projectId, new Date(Date.now() - 7 * DAY_MS)), streamCounts(deps.db, projectId, null)]);
  const streamOf = (stream: Stream) => ({ last7Days: assess(streams7[stream]), allTime: assess(streamsAll[stream]) });
  const suspensions = await listSuspensions(deps.db, projectId, 20);
  return {
    projectId,
    disabled: state.disabled,
    disabledReason: state.disabledReason,
    autoDisable: deps.config.autoDisable,
    status: last7Days.level,
    reviewedAt: state.reviewedAt ? new Date(state.reviewedAt).toISOString() : null,
    thresholds: THRESHOLDS,
    last7Days,
    allTime,
    streams: { transactional: streamOf('transactional'), marketing: streamOf('marketing') },
    marketingPaused: state.marketingPausedAt !== null,
    marketingPausedReason: state.marketingPausedReason,
    suspensions: suspensions.map((row) => ({ reason: row.reason, at: new Date(row.created_at).toISOString() })),
  };
}
