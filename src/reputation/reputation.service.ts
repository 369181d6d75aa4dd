import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import type { Deps } from '../deps.ts';
import { disableForReputation, findCriticalProjects, type ReputationCounts } from './reputation.queries.ts';

/**
 * Industry thresholds: hard bounces 5 % warning / 10 % critical, complaints 0.1 % / 0.3 %,
 * judged only once a window holds at least 100 sends.
 */
export const THRESHOLDS = {
  minimumSends: 100,
  bounceRate: { warning: 0.05, critical: 0.1 },
  complaintRate: { warning: 0.001, critical: 0.003 },
} as const;

export type Level = 'insufficient_data' | 'ok' | 'warning' | 'critical';
const RANK: Record<Level, number> = { insufficient_data: 0, ok: 1, warning: 2, critical: 3 };

const level = (rate: number, limits: { warning: number; critical: number }): Level => (rate >= limits.critical ? 'critical' : rate >= limits.warning ? 'warning' : 'ok');

/** Rates and their levels for one window. */
export function assess(counts: ReputationCounts) {
  const enough = counts.attempted >= THRESHOLDS.minimumSends;
  const bounceRate = counts.attempted ? counts.bounced / counts.attempted : 0;
  const complaintRate = counts.attempted ? counts.complained / counts.attempted : 0;
  const bounceLevel: Level = enough ? level(bounceRate, THRESHOLDS.bounceRate) : 'insufficient_data';
  const complaintLevel: Level = enough ? level(complaintRate, THRESHOLDS.complaintRate) : 'insufficient_data';
  return {
    sends: counts.attempted,
    bounced: counts.bounced,
    complained: counts.complained,
    bounceRate: Math.round(bounceRate * 1e6) / 1e6,
    complaintRate: Math.round(complaintRate * 1e6) / 1e6,
    bounceLevel,
    complaintLevel,
    level: RANK[bounceLevel] >= RANK[complaintLevel] ? bounceLevel : complaintLevel,
  };
}

const percent = (rate: number) => `${(rate * 100).toFixed(rate < 0.01 ? 2 : 1)}%`;

/**
 * After each rollup run, for the projects whose sends, bounces or complaints grew in it: with
 * AUTO_DISABLE on, a project whose rates over the last 7 days (counting only sends since an OWNER
 * last re-enabled it) reach a critical threshold is disabled at once, with the reason, and the
 * disabling is audited.
 */
export async function checkReputation(deps: Pick<Deps, 'db' | 'config' | 'keys' | 'log'>, projectIds: string[]): Promise<void> {
  if (!deps.config.autoDisable || projectIds.length === 0) return;
  const critical = await findCriticalProjects(deps.db, projectIds, {
    minimumSends: THRESHOLDS.minimumSends,
    bounceRate: THRESHOLDS.bounceRate.critical,
    complaintRate: THRESHOLDS.complaintRate.critical,
  });
  for (const { project_id: projectId, ...counts } of critical) {
    const window = assess(counts);
    const causes = [
      window.bounceLevel === 'critical' ? `hard bounce rate ${percent(window.bounceRate)} (critical at ${percent(THRESHOLDS.bounceRate.critical)})` : null,
      window.complaintLevel === 'critical' ? `complaint rate ${percent(window.complaintRate)} (critical at ${percent(THRESHOLDS.complaintRate.critical)})` : null,
    ].filter(Boolean);
    const reason = `Disabled automatically: ${causes.join(' and ')} over ${window.sends} sends in the last 7 days. Clean the contact list, then an OWNER can re-enable the project.`;
    const disabled = await deps.db.transaction(async (tx) => {
      if (!(await disableForReputation(tx, projectId, reason))) return false;
      await recordAudit(tx, projectId, { actorId: null, action: 'project.disabled', details: { reason, automatic: true, ...window } });
      return true;
    });
    if (disabled) {
      // Keys of a disabled project are refused from the next request on (api-keys.ts cache).
      deps.keys.forget(projectId);
      deps.log.warn({ projectId, reason }, 'project disabled for its sending reputation');
    }
  }
}
