import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import { hasTwoFactor, type Role } from '../auth/auth.queries.ts';
import type { Queryable } from '../db/index.ts';
import { releaseHeldMarketing } from '../emails/email-status.queries.ts';
import { AppError, forbidden } from '../errors.ts';
import { markReviewed, resumeMarketing } from '../reputation/reputation.queries.ts';
import { MARKETING_PAUSED } from '../reputation/reputation.service.ts';
import { lockProjectForChange, type Project, type ProjectChanges, updateProject } from './projects.queries.ts';

/**
 * PATCH /users/@me/projects/{id} inside its transaction: applies the change and writes the audit
 * entries. A project the service disabled for its reputation is re-enabled by an OWNER only, and
 * re-enabling marks it reviewed, so the sends before it no longer count towards disabling it again
 * (docs/decisions/reputation.md).
 */
export async function updateProjectAudited(tx: Queryable, projectId: string, actor: { id: string; role: Role }, changes: ProjectChanges): Promise<Project | undefined> {
  const before = await lockProjectForChange(tx, projectId);
  if (!before) return undefined;
  const enabling = changes.disabled === false && before.disabled;
  if (enabling && before.by_service && actor.role !== 'OWNER') {
    throw forbidden('Only an OWNER can re-enable a project that was disabled for its bounce or complaint rate.');
  }
  if (changes.marketingPaused === false && actor.role !== 'OWNER') {
    throw forbidden('Only an OWNER can resume marketing mail that was paused for its bounce or complaint rate.');
  }
  if (changes.requireTwoFactor !== undefined && changes.requireTwoFactor !== before.require_two_factor && actor.role !== 'OWNER') {
    throw forbidden('Only an OWNER can change whether the project requires two-factor sign-in.');
  }
  // Requiring it without having it would lock the OWNER out of their own project.
  if (changes.requireTwoFactor === true && !before.require_two_factor && !(await hasTwoFactor(tx, actor.id))) {
    throw new AppError('TWO_FACTOR_REQUIRED', { message: 'Turn on two-factor sign-in for your own account first (account page), then require it of the members.' });
  }
  const project = await updateProject(tx, projectId, changes);
  if (!project) return undefined;
  const audit = (action: Parameters<typeof recordAudit>[2]['action'], details: Record<string, unknown>) => recordAudit(tx, projectId, { actorId: actor.id, action, details });
  if (changes.name !== undefined && changes.name !== before.name) await audit('project.renamed', { from: before.name, to: changes.name });
  if (changes.disabled === true && !before.disabled) await audit('project.disabled', { automatic: false });
  const trackingBefore = { opens: before.tracking_opens, clicks: before.tracking_clicks };
  if (project.tracking.opens !== trackingBefore.opens || project.tracking.clicks !== trackingBefore.clicks) {
    await audit('project.tracking_changed', { from: trackingBefore, to: project.tracking });
  }
  if (project.requireTwoFactor !== before.require_two_factor) await audit('project.two_factor_requirement_changed', { required: project.requireTwoFactor });
  if (enabling) {
    await audit('project.enabled', { previousReason: before.disabled_reason });
    await markReviewed(tx, projectId);
  }
  // Resuming is a review of the marketing stream: its held records fall due now (docs/decisions/reputation.md).
  if (changes.marketingPaused === false && (await resumeMarketing(tx, projectId))) {
    await audit('project.marketing_resumed', {});
    await releaseHeldMarketing(tx, projectId, MARKETING_PAUSED);
  }
  return project;
}
