import type { EventUsageFinder, FieldUsageFinder, TemplateUsageFinder } from '../deps.ts';
import { findEventUsage, findFieldUsage, findTemplateUsage } from './workflows.queries.ts';

/**
 * Where workflows reference other resources, for the owners' usage endpoints (wired in
 * src/modules.ts): GET /templates/{id}/usage lists SEND_EMAIL steps; GET /contacts/fields/{field}/usage
 * lists workflows with a CONDITION on the field or an UPDATE_CONTACT writing it;
 * GET /events/{eventName}/usage lists workflows it triggers or resumes.
 */
export const workflowsUsage: { templates: TemplateUsageFinder; fields: FieldUsageFinder; events: EventUsageFinder } = {
  templates: async (db, projectId, templateId) => {
    const rows = await findTemplateUsage(db, projectId, templateId);
    return { workflows: rows.map((row) => ({ id: row.id, name: row.name, stepId: row.step_id })) };
  },
  fields: async (db, projectId, field) => {
    const conditionField = field.standard ? field.key : `data.${field.key}`;
    return { workflows: await findFieldUsage(db, projectId, conditionField, field.standard ? null : field.key) };
  },
  events: async (db, projectId, eventName) => ({ workflows: await findEventUsage(db, projectId, eventName) }),
};
