import { registerFieldUsage } from '../contacts/contact-fields.service.ts';
import type { Deps } from '../deps.ts';
import { registerEventUsage } from '../events/events.registry.ts';
import { registerTemplateUsage } from '../templates/templates.service.ts';
import { campaignsFilteringOn, campaignsUsingTemplate } from './campaigns.queries.ts';

let templatesRegistered = false;

/**
 * Tells the other capabilities where campaigns reference their things (their usage endpoints):
 * templates a campaign was made from, and fields and event names a FILTERED audience filters on.
 * Called from campaignsJobs(deps), which every process role runs at start-up.
 */
export function registerCampaignUsage(deps: Deps): void {
  // The template seam appends lookups (once per process); the others replace theirs by kind. The
  // event seam passes no database, so it holds this server's (in tests, the latest server's).
  if (!templatesRegistered) {
    templatesRegistered = true;
    registerTemplateUsage(async (db, projectId, templateId) => ({ campaigns: await campaignsUsingTemplate(db, projectId, templateId) }));
  }
  registerFieldUsage('campaigns', async (db, projectId, field) => {
    const rows = await campaignsFilteringOn(db, projectId, field.standard ? field.key : `data.${field.key}`);
    return rows.map(({ id, name }) => ({ id, name }));
  });
  registerEventUsage('campaigns', async (projectId, eventName) => {
    const rows = await campaignsFilteringOn(deps.db, projectId, `event.${eventName}`);
    return rows.map(({ id, name }) => ({ id, name }));
  });
}
