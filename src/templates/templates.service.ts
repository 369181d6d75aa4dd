import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { assertSenderAllowed } from '../domains/domains.service.ts';
import { AppError, flatBadRequest, notFound } from '../errors.ts';
import { checkTemplateSyntax } from '../rendering/render.ts';
import { resolveContent, type StoredContent, touchesContent } from './formats.ts';
import * as queries from './templates.queries.ts';
import {
  DEFAULT_PAGE_SIZE,
  type ListTemplatesInput,
  MAX_NAME,
  MAX_PAGE_SIZE,
  type Template,
  type TemplateInput,
  type TemplatePage,
  type TemplateRow,
  type TemplateUsage,
  toTemplate,
} from './templates.schemas.ts';

/**
 * POST /templates (the API reference (Templates)): missing required field → flat 400 (the body, or for mjml
 * and visual the source); unverified sender → 403. Broken Liquid or MJML → 400 with its line.
 * The first version of the template's history is kept with it.
 */
export async function createTemplate(deps: Deps, projectId: string, input: TemplateInput, userId?: string): Promise<Template> {
  const content = input.format === 'mjml' || input.format === 'visual' ? 'source' : input.source !== undefined ? 'source' : 'body';
  const missing = (['name', 'subject', content, 'from'] as const).find((field) => input[field] === undefined);
  if (missing) throw flatBadRequest(`${missing} is required`);
  checkTemplateSyntax(input.subject!, 'subject');
  const resolved = await resolveContent(input);
  await assertSenderAllowed(deps.db, projectId, input.from!);
  const row = await deps.db.transaction(async (tx) => {
    const inserted = await queries.insertTemplate(tx, projectId, {
      name: input.name!,
      description: input.description ?? null,
      subject: input.subject!,
      ...resolved,
      fromEmail: input.from!,
      fromName: input.fromName ?? null,
      replyTo: input.replyTo ?? null,
      type: input.type ?? 'MARKETING',
    });
    await queries.insertVersion(tx, projectId, inserted, userId ?? null);
    return inserted;
  });
  return toTemplate(row);
}

const storedContent = (row: TemplateRow): StoredContent => ({ format: row.format, source: row.source, editorState: row.editor_state, body: row.body });

/** Whether two rows differ in what a version keeps. */
function contentChanged(before: TemplateRow, after: TemplateRow): boolean {
  const key = (row: TemplateRow) => JSON.stringify([row.subject, row.body, row.format, row.source, row.editor_state ?? null]);
  return key(before) !== key(after);
}

export async function getTemplate(deps: Deps, projectId: string, id: string): Promise<Template> {
  return getTemplateForSend(deps.db, projectId, id);
}

/**
 * The template a send uses (/v1/send `template`, campaigns, workflow SEND_EMAIL); 404 when it is
 * not in the project (the API reference /v1/send). Takes a Queryable so it can run inside the send's transaction.
 */
export async function getTemplateForSend(db: Queryable, projectId: string, templateId: string): Promise<Template> {
  const row = await queries.findTemplate(db, projectId, templateId);
  if (!row) throw notFound('Template');
  return toTemplate(row);
}

/**
 * PATCH /templates/{id}: the fields given, with the same checks as create. A save that changes the
 * subject or content keeps a new version (who, when) in the same transaction.
 */
export async function updateTemplate(deps: Deps, projectId: string, id: string, input: TemplateInput, userId?: string): Promise<Template> {
  if (input.subject !== undefined) checkTemplateSyntax(input.subject, 'subject');
  let content: StoredContent | undefined;
  if (touchesContent(input) || input.from !== undefined) {
    const current = await queries.findTemplate(deps.db, projectId, id);
    if (!current) throw notFound('Template');
    if (touchesContent(input)) content = await resolveContent(input, storedContent(current));
    if (input.from !== undefined) await assertSenderAllowed(deps.db, projectId, input.from);
  }
  const row = await deps.db.transaction(async (tx) => {
    const before = await queries.findTemplateForUpdate(tx, projectId, id);
    if (!before) throw notFound('Template');
    const after = await queries.updateTemplate(tx, projectId, id, {
      name: input.name,
      description: input.description,
      subject: input.subject,
      ...content,
      fromEmail: input.from,
      fromName: input.fromName,
      replyTo: input.replyTo,
      type: input.type,
    });
    if (after && contentChanged(before, after)) await queries.insertVersion(tx, projectId, after, userId ?? null);
    return after;
  });
  if (!row) throw notFound('Template');
  return toTemplate(row);
}

// A campaign that was sent or cancelled only remembers where its content came from.
const FINISHED_CAMPAIGN = new Set(['SENT', 'CANCELLED']);

/**
 * DELETE /templates/{id}: refused (409, naming them) while a campaign not yet sent or a workflow
 * step uses the template; sent and cancelled campaigns keep their copy of the content and lose
 * only the link (docs/templates.md).
 */
export async function deleteTemplate(deps: Deps, projectId: string, id: string): Promise<void> {
  const usage = await templateUsage(deps, projectId, id);
  usage.campaigns = usage.campaigns.filter((c) => !FINISHED_CAMPAIGN.has(c.status));
  const users = [...usage.campaigns.map((c) => `campaign "${c.name}"`), ...usage.workflows.map((w) => `workflow "${w.name}"`)];
  if (users.length) {
    throw new AppError('CONFLICT', {
      message: `The template is used by ${users.join(', ')}: remove it from them first.`,
      details: { usage },
    });
  }
  if (!(await queries.deleteTemplate(deps.db, projectId, id))) throw notFound('Template');
}

/** POST /templates/{id}/duplicate: a copy named "<name> (copy)"; returns the new id. */
export async function duplicateTemplate(deps: Deps, projectId: string, id: string, userId?: string): Promise<{ id: string }> {
  return deps.db.transaction(async (tx) => {
    const copy = await queries.duplicateTemplate(tx, projectId, id, ' (copy)', MAX_NAME);
    if (!copy) throw notFound('Template');
    const row = await queries.findTemplate(tx, projectId, copy.id);
    await queries.insertVersion(tx, projectId, row!, userId ?? null);
    return copy;
  });
}

/** GET /templates/{id}/usage. */
export async function templateUsage(deps: Deps, projectId: string, id: string): Promise<TemplateUsage> {
  await getTemplateForSend(deps.db, projectId, id);
  const usage: TemplateUsage = { campaigns: [], workflows: [] };
  for (const find of deps.registry.usage.templates) {
    const found = await find(deps.db, projectId, id);
    usage.campaigns.push(...(found.campaigns ?? []));
    usage.workflows.push(...(found.workflows ?? []));
  }
  return usage;
}

/** GET /templates (the API reference (Conventions): offset pagination; pageSize clamped to 100). */
export async function listTemplates(deps: Deps, projectId: string, input: ListTemplatesInput): Promise<TemplatePage> {
  const page = input.page ?? 1;
  const pageSize = Math.min(input.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const sort = input.sort === 'name' || input.sort === 'updatedAt' ? input.sort : 'createdAt';
  const dir = input.dir === 'asc' ? 'asc' : 'desc';
  const filters = { type: input.type, search: input.search || undefined };
  const [rows, total] = await Promise.all([
    queries.listTemplates(deps.db, projectId, { ...filters, sort, dir, limit: pageSize, offset: (page - 1) * pageSize }),
    queries.countTemplates(deps.db, projectId, filters),
  ]);
  return { data: rows.map(toTemplate), total, page, pageSize, totalPages: Math.ceil(total / pageSize) };
}
