/**
 * What happens to email records when what they were made from is deleted: they stay, without it.
 * The deleting statement detaches them itself, as a data-modifying CTE written here: on Citus a
 * foreign key's ON DELETE SET NULL cannot exist on these tables (it would null `project_id` too,
 * docs/citus.md), and one statement keeps the delete and the detach atomic without a transaction.
 *
 * Each takes the SQL placeholders of the deleting statement: the project's id and the deleted ids
 * (an array). Contacts lie below this folder (emails are made for contacts), so their deletes
 * write the same detach themselves (src/contacts/contacts.queries.ts).
 */

/** Records made from a deleted template keep their rendered content, without the template. */
export const detachTemplatesCte = (projectId: string, templateIds: string) =>
  `UPDATE emails SET template_id = NULL WHERE project_id = ${projectId} AND template_id = ANY(${templateIds})`;
