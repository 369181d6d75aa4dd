import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import type { Deps } from '../deps.ts';
import type { Stream } from '../emails/emails.queries.ts';
import { disableForReputation, findCriticalProjects, findStreamWindows, pauseMarketing, type ReputationCounts } from './reputation.queries.ts';

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

/** The prefix of a marketing record's last_error while its project's marketing mail is paused (the reason follows). */
export const MARKETING_PAUSED = 'Held: ';

const causesOf = (window: ReturnType<typeof assess>) =>
  [
    window.bounceLevel === 'critical' ? `hard bounce rate ${percent(window.bounceRate)} (critical at ${percent(THRESHOLDS.bounceRate.critical)})` : null,
    window.complaintLevel === 'critical' ? `complaint rate ${percent(window.complaintRate)} (critical at ${percent(THRESHOLDS.complaintRate.critical)})` : null,
  ]
    .filter(Boolean)
    .join(' and ');

type Verdict = { action: 'disable' | 'pause'; window: ReturnType<typeof assess>; of: 'project' | Stream };

/**
 * What AUTO_DISABLE does to a project (docs/decisions/reputation.md): its transactional stream at a
 * critical rate disables it; its marketing stream at a critical rate pauses marketing mail only;
 * otherwise the project's rates together decide, and then marketing mail is paused first when it
 * sent any (the transactional stream alone is judged once it has the sends), the project disabled
 * when it sent none.
 */
export function verdictOf(streams: Partial<Record<Stream, ReputationCounts>>, project: ReputationCounts | undefined, marketingPaused: boolean): Verdict | undefined {
  const transactional = streams.transactional && assess(streams.transactional);
  if (transactional?.level === 'critical') return { action: 'disable', window: transactional, of: 'transactional' };
  const marketing = streams.marketing && assess(streams.marketing);
  if (marketing?.level === 'critical') return marketingPaused ? undefined : { action: 'pause', window: marketing, of: 'marketing' };
  const whole = project && assess(project);
  if (whole?.level !== 'critical') return undefined;
  if ((streams.marketing?.attempted ?? 0) > 0) return marketingPaused ? undefined : { action: 'pause', window: whole, of: 'project' };
  return { action: 'disable', window: whole, of: 'project' };
}

/**
 * After each rollup run, for the projects whose sends, bounces or complaints grew in it: with
 * AUTO_DISABLE on, a project whose rates over the last 7 days (counting only sends since an OWNER
 * last re-enabled it or resumed its marketing) reach a critical threshold has its marketing mail
 * paused, or is disabled (verdictOf), at once, with the reason; each is audited.
 */
export async function checkReputation(deps: Pick<Deps, 'db' | 'config' | 'keys' | 'log'>, projectIds: string[]): Promise<void> {
  if (!deps.config.autoDisable || projectIds.length === 0) return;
  const limits = { minimumSends: THRESHOLDS.minimumSends, bounceRate: THRESHOLDS.bounceRate.critical, complaintRate: THRESHOLDS.complaintRate.critical };
  const [critical, streamRows] = await Promise.all([findCriticalProjects(deps.db, projectIds, limits), findStreamWindows(deps.db, projectIds)]);
  const projects = new Map<string, { streams: Partial<Record<Stream, ReputationCounts>>; whole?: ReputationCounts; paused: boolean }>();
  const entry = (id: string) => projects.get(id) ?? projects.set(id, { streams: {}, paused: false }).get(id)!;
  for (const { project_id, stream, paused, ...counts } of streamRows) {
    const project = entry(project_id);
    project.streams[stream] = { attempted: Number(counts.attempted), bounced: Number(counts.bounced), complained: Number(counts.complained) };
    project.paused ||= paused;
  }
  for (const { project_id, ...counts } of critical) entry(project_id).whole = counts;
  for (const [projectId, { streams, whole, paused }] of projects) {
    const verdict = verdictOf(streams, whole, paused);
    if (verdict?.action === 'disable') await disable(deps, projectId, verdict);
    else if (verdict?.action === 'pause') await pause(deps, projectId, verdict);
  }
}

const scope = (verdict: Verdict) => (verdict.of === 'project' ? '' : `${verdict.of} `);

async function disable(deps: Pick<Deps, 'db' | 'keys' | 'log'>, projectId: string, verdict: Verdict): Promise<void> {
  const { window } = verdict;
  const reason = `Disabled automatically: ${scope(verdict)}${causesOf(window)} over ${window.sends} sends in the last 7 days. Clean the contact list, then an OWNER can re-enable the project.`;
  const disabled = await deps.db.transaction(async (tx) => {
    if (!(await disableForReputation(tx, projectId, reason))) return false;
    await recordAudit(tx, projectId, {
      actorId: null,
      action: 'project.disabled',
      details: { reason, automatic: true, stream: verdict.of === 'project' ? null : verdict.of, ...window },
    });
    return true;
  });
  if (disabled) {
    // Keys of a disabled project are refused from the next request on (api-keys.ts cache).
    deps.keys.forget(projectId);
    deps.log.warn({ projectId, reason }, 'project disabled for its sending reputation');
  }
}

async function pause(deps: Pick<Deps, 'db' | 'log'>, projectId: string, verdict: Verdict): Promise<void> {
  const { window } = verdict;
  const reason = `Marketing mail paused automatically: ${scope(verdict)}${causesOf(window)} over ${window.sends} sends in the last 7 days. Transactional mail keeps flowing. Clean the contact list, then an OWNER can resume marketing mail.`;
  const paused = await deps.db.transaction(async (tx) => {
    if (!(await pauseMarketing(tx, projectId, reason))) return false;
    await recordAudit(tx, projectId, { actorId: null, action: 'project.marketing_paused', details: { reason, automatic: true, ...window } });
    return true;
  });
  if (paused) deps.log.warn({ projectId, reason }, 'marketing mail paused for its sending reputation');
}
