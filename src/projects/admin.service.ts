import { pauseRollup } from '../analytics/rollup.queries.ts';
import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import type { Deps } from '../deps.ts';
import { badRequest, notFound } from '../errors.ts';
import { deleteProjectRows, findProjectNameForUpdate, resettableTables, setupState } from './admin.queries.ts';
import { requireRole } from './projects.service.ts';

type AdminDeps = Pick<Deps, 'db'>;

/** The onboarding steps of GET /projects/{id}/setup-state, in the order a dashboard shows them. */
const STEPS = [
  { id: 'domainAdded', column: 'domain_added', label: 'Add a sending domain' },
  { id: 'domainVerified', column: 'domain_verified', label: 'Verify the domain (publish its DKIM record)' },
  { id: 'contactCreated', column: 'contact_created', label: 'Create or import a first contact' },
  { id: 'templateCreated', column: 'template_created', label: 'Create a template' },
  { id: 'emailSent', column: 'email_sent', label: 'Send a first email' },
  { id: 'eventTracked', column: 'event_tracked', label: 'Track a first event' },
  { id: 'campaignCreated', column: 'campaign_created', label: 'Create a campaign' },
  { id: 'teamInvited', column: 'team_invited', label: 'Invite a team member' },
] as const;

/** GET /projects/{id}/setup-state: which onboarding steps are done (any member). */
export async function getSetupState(deps: AdminDeps, projectId: string, userId: string) {
  await requireRole(deps, projectId, userId, ['OWNER', 'ADMIN', 'MEMBER'], 'read the setup state');
  const row = await setupState(deps.db, projectId);
  const steps = STEPS.map((step) => ({ id: step.id, label: step.label, done: row[step.column] }));
  const completed = steps.filter((step) => step.done).length;
  return { steps, completed, total: steps.length, done: completed === steps.length };
}

/**
 * POST /users/@me/projects/{id}/reset (OWNER): deletes the project's data — contacts, events,
 * emails, templates, campaigns, segments, workflows, uploads, rollups … — in one transaction,
 * keeping the project, its keys, members, domains and settings. `confirm` must repeat the
 * project's name. Audited with the number of rows removed per table.
 */
export async function resetProject(deps: AdminDeps, projectId: string, userId: string, confirm: string) {
  await requireRole(deps, projectId, userId, ['OWNER'], 'reset the project');
  return deps.db.transaction(async (tx) => {
    // The rollup first: a run holding it takes key-share locks on project rows (foreign keys).
    await pauseRollup(tx);
    const name = await findProjectNameForUpdate(tx, projectId);
    if (name === undefined) throw notFound('Project');
    if (confirm !== name) {
      throw badRequest('The confirmation does not match the project name.', { suggestion: `Send { "confirm": "<the project's exact name>" } to reset it.` });
    }
    const deleted: Record<string, number> = {};
    for (const table of await resettableTables(tx)) {
      const count = await deleteProjectRows(tx, table, projectId);
      if (count) deleted[table] = count;
    }
    await recordAudit(tx, projectId, { actorId: userId, action: 'project.reset', details: { deleted } });
    return { success: true as const, deleted };
  });
}
