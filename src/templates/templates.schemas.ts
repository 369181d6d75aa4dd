import { z } from 'zod';
import { offsetPage, offsetPageFields, sortFields } from '../pagination.ts';
import { type ContentFormat, contentOut, formatFields, formatResponseFields } from './formats.ts';

export const TEMPLATE_TYPES = ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

/** A templates row as the queries select it. */
export type TemplateRow = {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  subject: string;
  body: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  type: TemplateType;
  format: ContentFormat;
  source: string | null;
  editor_state: unknown;
  created_at: Date | string;
  updated_at: Date | string;
};

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/** the API reference (Template), from a templates row. Unset optional fields are null. */
export function toTemplate(row: TemplateRow): Template {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    subject: row.subject,
    body: row.body,
    from: row.from_email,
    fromName: row.from_name,
    replyTo: row.reply_to,
    type: row.type,
    ...contentOut({ format: row.format, source: row.source, editorState: row.editor_state, body: row.body }),
    projectId: row.project_id,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const templateSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  subject: z.string(),
  body: z.string().describe('the HTML that is sent; for mjml and visual, rendered from source and read-only'),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  type: z.enum(TEMPLATE_TYPES),
  ...formatResponseFields,
  projectId: z.uuid(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Template = z.infer<typeof templateSchema>;

// Field limits (docs/decisions/templates.md). The subject is Liquid source: it renders to ≤ 998.
export const MAX_NAME = 200;
export const MAX_DESCRIPTION = 2000;
export const MAX_SUBJECT_SOURCE = 2000;
export const MAX_BODY = 1_000_000;

const noLineBreaks = (value: string) => !/[\r\n]/.test(value);
const email = z.string().trim().max(254).pipe(z.email());
const headerText = (max: number) => z.string().trim().max(max).refine(noLineBreaks, { message: 'Must not contain line breaks.' });

const fields = {
  name: z.string().trim().min(1).max(MAX_NAME),
  subject: z.string().min(1).max(MAX_SUBJECT_SOURCE),
  body: z.string().min(1).max(MAX_BODY),
  from: email,
  description: z.string().max(MAX_DESCRIPTION).nullable(),
  fromName: headerText(200).nullable(),
  replyTo: email.nullable(),
  type: z.enum(TEMPLATE_TYPES),
};

/**
 * POST /templates and PATCH /templates/{id}. On create, name, subject, body and from are checked
 * for presence by the service so that their absence is the flat 400 `{ error }` the API reference requires; a
 * wrong type or a bad email is a 422 here. On PATCH any subset may be given; null clears an
 * optional field.
 */
export const templateBody = z.object({
  name: fields.name.optional(),
  subject: fields.subject.optional(),
  body: fields.body.optional(),
  from: fields.from.optional(),
  description: fields.description.optional(),
  fromName: fields.fromName.optional(),
  replyTo: fields.replyTo.optional(),
  type: fields.type.optional(),
  ...formatFields,
});
export type TemplateInput = z.infer<typeof templateBody>;

export const templateIdParams = z.object({ id: z.uuid() });

// the API reference leaves the maximum pageSize open for templates and campaigns: 100, like every list.
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination.ts';

/** the API reference (Conventions), offset pagination; unknown sort → createdAt, unknown dir → desc. */
export const listTemplatesQuery = z.object({
  ...offsetPageFields,
  ...sortFields,
  type: z.enum(TEMPLATE_TYPES).optional(),
  search: z.string().max(200).optional().describe('case-insensitive substring of name, description or subject'),
});
export type ListTemplatesInput = z.infer<typeof listTemplatesQuery>;

export const templatePage = offsetPage(templateSchema);
export type TemplatePage = z.infer<typeof templatePage>;

export const duplicatedTemplate = z.object({ id: z.uuid() });

/** GET /templates/{id}/usage: what references the template (the API reference (Templates)). */
export const templateUsage = z.object({
  campaigns: z.array(z.object({ id: z.uuid(), name: z.string(), status: z.string() })),
  workflows: z.array(z.object({ id: z.uuid(), name: z.string(), stepId: z.uuid() })),
});
export type TemplateUsage = z.infer<typeof templateUsage>;

/**
 * POST /templates/preview (an unsaved draft) and POST /templates/{id}/preview (the saved template,
 * with `subject` or `body` replacing the saved ones when given): rendered with a contact's data.
 */
const previewFields = {
  subject: z.string().max(MAX_SUBJECT_SOURCE),
  body: z.string().max(MAX_BODY).optional().describe('the HTML, for format html'),
  format: formatFields.format,
  source: formatFields.source.describe('MJML for mjml and visual'),
  type: z.enum(TEMPLATE_TYPES).optional().describe("what the checks judge it as (MARKETING needs an unsubscribe link); default MARKETING, or the saved template's"),
  contactId: z.uuid().nullable().optional().describe('whose data renders it; none: no contact variables'),
};
export const draftPreviewBody = z.object({ ...previewFields });
export const templatePreviewBody = z.object({ ...previewFields, subject: previewFields.subject.optional() });
export type PreviewInput = { subject: string; body?: string; format?: ContentFormat; source?: string; type?: TemplateType; contactId?: string | null };

export const contentCheck = z.object({
  code: z.enum(['IMAGE_WITHOUT_ALT', 'LINK_NOT_HTTP', 'HTML_CLIPPED', 'NO_UNSUBSCRIBE_LINK', 'NO_TEXT_PART']),
  message: z.string(),
  where: z.string().describe('which image, link or part'),
});

export const templatePreview = z.object({
  subject: z.string(),
  html: z.string(),
  text: z.string(),
  contact: z.object({ id: z.uuid(), email: z.string() }).nullable(),
  emptyPlaceholders: z.array(z.string()).describe('placeholders without a fallback that render empty for this contact'),
  checks: z.array(contentCheck).describe('advice before sending: images without alt, links not http(s), HTML over 102 KB, no unsubscribe link, no text part'),
});
export type TemplatePreview = z.infer<typeof templatePreview>;

/** POST /templates/{id}/test, shaped as POST /campaigns/{id}/test; `email` defaults to the signed-in user's. */
export const templateTestBody = z.object({
  email: email.optional(),
  contactId: z.uuid().optional().describe('whose data renders the copy, as in the preview; default: the contact with that address'),
});
export const templateTestSent = z.object({ success: z.literal(true), message: z.string(), data: z.object({ emailId: z.uuid(), to: z.string() }) });

/** GET /templates/{id}/versions (docs/templates.md, History). */
export const templateVersionSummary = z.object({
  version: z.number().int(),
  createdAt: z.string(),
  createdBy: z.object({ id: z.uuid(), email: z.string().nullable() }).nullable().describe('the user who saved it; null when an API key did'),
  subject: z.string(),
  format: formatResponseFields.format,
});
export type TemplateVersionSummary = z.infer<typeof templateVersionSummary>;
export const templateVersionList = z.object({ data: z.array(templateVersionSummary) });

/** GET /templates/{id}/versions/{version}: the content then. */
export const templateVersion = templateVersionSummary.extend({ body: z.string(), ...formatResponseFields });
export type TemplateVersion = z.infer<typeof templateVersion>;

export const templateVersionParams = z.object({ id: z.uuid(), version: z.coerce.number().int().min(1).max(2_147_483_647) });

/** GET /templates/starters: the starters offered on "New template" (docs/templates.md). */
export const starterList = z.object({
  data: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      description: z.string(),
      type: z.enum(TEMPLATE_TYPES),
      subject: z.string(),
      format: z.literal('mjml'),
      source: z.string(),
    }),
  ),
});
