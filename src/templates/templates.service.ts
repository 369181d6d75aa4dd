import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { assertSenderAllowed } from '../domains/domains.service.ts';
import { flatBadRequest, notFound } from '../errors.ts';
import { checkTemplateSyntax } from '../rendering/render.ts';
import * as queries from './templates.queries.ts';
import {
  DEFAULT_PAGE_SIZE,
  MAX_NAME,
  MAX_PAGE_SIZE,
  type ListTemplatesInput,
  type Template,
  type TemplateInput,
  type TemplatePage,
  type TemplateUsage,
  toTemplate,
} from './templates.schemas.ts';

const REQUIRED = ['name', 'subject', 'body', 'from'] as const;

/** Contract §5: broken Liquid in the subject or body is refused (400 naming line and column). */
function checkContent(input: Pick<TemplateInput, 'subject' | 'body'>): void {
  if (input.subject !== undefined) checkTemplateSyntax(input.subject, 'subject');
  if (input.body !== undefined) checkTemplateSyntax(input.body, 'body');
}

/** POST /templates (api.md Templates): missing required field → flat 400; unverified sender → 403. */
export async function createTemplate(deps: Deps, projectId: string, input: TemplateInput): Promise<Template> {
  const missing = REQUIRED.find((field) => input[field] === undefined);
  if (missing) throw flatBadRequest(`${missing} is required`);
  checkContent(input);
  await assertSenderAllowed(deps.db, projectId, input.from!);
  const row = await queries.insertTemplate(deps.db, projectId, {
    name: input.name!,
    description: input.description ?? null,
    subject: input.subject!,
    body: input.body!,
    fromEmail: input.from!,
    fromName: input.fromName ?? null,
    replyTo: input.replyTo ?? null,
    type: input.type ?? 'MARKETING',
  });
  return toTemplate(row);
}

export async function getTemplate(deps: Deps, projectId: string, id: string): Promise<Template> {
  return getTemplateForSend(deps.db, projectId, id);
}

/**
 * The template a send uses (/v1/send `template`, campaigns, workflow SEND_EMAIL); 404 when it is
 * not in the project (api.md /v1/send). Takes a Queryable so it can run inside the send's transaction.
 */
export async function getTemplateForSend(db: Queryable, projectId: string, templateId: string): Promise<Template> {
  const row = await queries.findTemplate(db, projectId, templateId);
  if (!row) throw notFound('Template');
  return toTemplate(row);
}

/** PATCH /templates/{id}: the fields given, with the same checks as create. */
export async function updateTemplate(deps: Deps, projectId: string, id: string, input: TemplateInput): Promise<Template> {
  checkContent(input);
  if (input.from !== undefined) {
    await getTemplateForSend(deps.db, projectId, id);
    await assertSenderAllowed(deps.db, projectId, input.from);
  }
  const row = await queries.updateTemplate(deps.db, projectId, id, {
    name: input.name,
    description: input.description,
    subject: input.subject,
    body: input.body,
    fromEmail: input.from,
    fromName: input.fromName,
    replyTo: input.replyTo,
    type: input.type,
  });
  if (!row) throw notFound('Template');
  return toTemplate(row);
}

export async function deleteTemplate(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!(await queries.deleteTemplate(deps.db, projectId, id))) throw notFound('Template');
}

/** POST /templates/{id}/duplicate: a copy named "<name> (copy)"; returns the new id. */
export async function duplicateTemplate(deps: Deps, projectId: string, id: string): Promise<{ id: string }> {
  const copy = await queries.duplicateTemplate(deps.db, projectId, id, ' (copy)', MAX_NAME);
  if (!copy) throw notFound('Template');
  return copy;
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

/** GET /templates (api.md Conventions: offset pagination; pageSize clamped to 100). */
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
