import type { Deps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { contentOut } from './formats.ts';
import * as queries from './templates.queries.ts';
import type { Template, TemplateVersion, TemplateVersionSummary } from './templates.schemas.ts';
import { getTemplateForSend, updateTemplate } from './templates.service.ts';

// The newest versions a listing answers; older ones stay readable by number.
const MAX_LISTED = 200;

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

function summaryOf(row: queries.TemplateVersionRow): TemplateVersionSummary {
  return {
    version: row.version,
    createdAt: iso(row.created_at),
    createdBy: row.created_by ? { id: row.created_by, email: row.created_by_email } : null,
    subject: row.subject,
    format: row.format,
  };
}

/** GET /templates/{id}/versions: newest first. */
export async function listTemplateVersions(deps: Deps, projectId: string, id: string): Promise<{ data: TemplateVersionSummary[] }> {
  await getTemplateForSend(deps.db, projectId, id);
  const rows = await queries.listVersions(deps.db, projectId, id, MAX_LISTED);
  return { data: rows.map(summaryOf) };
}

async function versionOr404(deps: Deps, projectId: string, id: string, version: number) {
  await getTemplateForSend(deps.db, projectId, id);
  const row = await queries.findVersion(deps.db, projectId, id, version);
  if (!row) throw notFound('Template version');
  return row;
}

/** GET /templates/{id}/versions/{version}: the content the template had then. */
export async function getTemplateVersion(deps: Deps, projectId: string, id: string, version: number): Promise<TemplateVersion> {
  const row = await versionOr404(deps, projectId, id, version);
  return { ...summaryOf(row), body: row.body, ...contentOut({ format: row.format, source: row.source, editorState: row.editor_state, body: row.body }) };
}

/**
 * POST /templates/{id}/versions/{version}/restore: saves that version's subject and content as the
 * template's (rendered and checked again, like any save), which keeps it as the newest version.
 */
export async function restoreTemplateVersion(deps: Deps, projectId: string, id: string, version: number, userId?: string): Promise<Template> {
  const row = await versionOr404(deps, projectId, id, version);
  const content = row.format === 'html' ? { format: row.format, body: row.body } : { format: row.format, source: row.source ?? undefined, editorState: row.editor_state ?? null };
  return updateTemplate(deps, projectId, id, { subject: row.subject, ...content }, userId);
}
