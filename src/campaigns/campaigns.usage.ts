import type { EventUsageFinder, FieldUsageFinder, TemplateUsageFinder } from '../deps.ts';
import { campaignsFilteringOn, campaignsUsingTemplate } from './campaigns.queries.ts';

const idAndName = (rows: Array<{ id: string; name: string }>) => rows.map(({ id, name }) => ({ id, name }));

/**
 * Where campaigns reference the other capabilities' things, for their usage endpoints (wired in
 * src/modules.ts): templates a campaign was made from, and fields and event names a FILTERED
 * audience filters on.
 */
export const campaignsUsage: { templates: TemplateUsageFinder; fields: FieldUsageFinder; events: EventUsageFinder } = {
  templates: async (db, projectId, templateId) => ({ campaigns: await campaignsUsingTemplate(db, projectId, templateId) }),
  fields: async (db, projectId, field) => ({ campaigns: idAndName(await campaignsFilteringOn(db, projectId, field.standard ? field.key : `data.${field.key}`)) }),
  events: async (db, projectId, eventName) => ({ campaigns: idAndName(await campaignsFilteringOn(db, projectId, `event.${eventName}`)) }),
};
