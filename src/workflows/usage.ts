import { registerFieldUsage } from '../contacts/contact-fields.service.ts';
import { registerTemplateUsage } from '../templates/templates.service.ts';
import { findFieldUsage, findTemplateUsage } from './workflows.queries.ts';

/**
 * Where workflows reference other resources, answered through the owners' usage seams (registered
 * at module load): GET /templates/{id}/usage lists SEND_EMAIL steps; GET /contacts/fields/{field}/usage
 * lists workflows with a CONDITION on the field or an UPDATE_CONTACT writing it. Event names are
 * registered in workflows.jobs.ts, whose seam takes no database handle.
 */
registerTemplateUsage(async (db, projectId, templateId) => {
  const rows = await findTemplateUsage(db, projectId, templateId);
  return { workflows: rows.map((row) => ({ id: row.id, name: row.name, stepId: row.step_id })) };
});

registerFieldUsage('workflows', async (db, projectId, field) => {
  const conditionField = field.standard ? field.key : `data.${field.key}`;
  return findFieldUsage(db, projectId, conditionField, field.standard ? null : field.key);
});
