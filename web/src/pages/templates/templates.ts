import type { paths } from '@mailroom/client';
import { asApiError } from '../../api/errors.ts';

export type Template = paths['/templates/{id}']['get']['responses'][200]['content']['application/json'];
export type TemplateUsage = paths['/templates/{id}/usage']['get']['responses'][200]['content']['application/json'];
export type Starter = paths['/templates/starters']['get']['responses'][200]['content']['application/json']['data'][number];
export type TemplateVersion = paths['/templates/{id}/versions']['get']['responses'][200]['content']['application/json']['data'][number];
export type Check = paths['/templates/preview']['post']['responses'][200]['content']['application/json']['checks'][number];
export type Format = Template['format'];

export const FORMAT_LABELS: Record<Format, string> = { html: 'HTML', mjml: 'MJML', visual: 'Visual' };

export const TEMPLATE_TYPES = ['MARKETING', 'TRANSACTIONAL', 'HEADLESS'] as const;
export type TemplateType = (typeof TEMPLATE_TYPES)[number];

export const TYPE_LABELS: Record<TemplateType, string> = {
  MARKETING: 'Marketing',
  TRANSACTIONAL: 'Transactional',
  HEADLESS: 'Headless',
};

export const templateKeys = {
  all: (projectId: string) => ['templates', projectId] as const,
  list: (projectId: string, filters: object) => ['templates', projectId, 'list', filters] as const,
  one: (projectId: string, id: string) => ['templates', projectId, 'one', id] as const,
  usage: (projectId: string, id: string) => ['templates', projectId, 'usage', id] as const,
  versions: (projectId: string, id: string) => ['templates', projectId, 'versions', id] as const,
  starters: ['template-starters'] as const,
};

/**
 * What the editor edits: the template's fields as strings (empty = unset). `body` is the text the
 * author writes: the HTML for `html`, the MJML source for `mjml` and `visual` (docs/templates.md).
 */
export type Draft = {
  name: string;
  description: string;
  subject: string;
  format: Format;
  body: string;
  /** A visual template's editor state as JSON text ('' = none: the editor opens the MJML). */
  editorState: string;
  from: string;
  fromName: string;
  replyTo: string;
  type: TemplateType;
};

export const EMPTY_DRAFT: Draft = {
  name: '',
  description: '',
  subject: '',
  format: 'html',
  body: '<h1>Hello {{ data.firstName ?? "there" }}</h1>\n<p>Write your message here.</p>\n',
  editorState: '',
  from: '',
  fromName: '',
  replyTo: '',
  type: 'MARKETING',
};

/** What a new visual design starts from when no starter was chosen: one section of text and the unsubscribe footer. */
export const BLANK_MJML = `<mjml>
<mj-body background-color="#f1f3f5">
<mj-section background-color="#ffffff" padding="24px 16px">
<mj-column>
<mj-text font-size="16px" line-height="1.6">Hello {{ data.firstName ?? "there" }}, write your message here.</mj-text>
</mj-column>
</mj-section>
<mj-section padding="16px 0px 32px">
<mj-column>
<mj-text align="center" font-size="12px" color="#6b7280"><a href="{{ manageUrl }}">Email preferences</a> · <a href="{{ unsubscribeUrl }}">Unsubscribe</a></mj-text>
</mj-column>
</mj-section>
</mj-body>
</mjml>
`;

export const isMjml = (source: string) => source.trimStart().startsWith('<mjml');

export function draftOf(template: Template): Draft {
  return {
    name: template.name,
    description: template.description ?? '',
    subject: template.subject,
    format: template.format,
    body: template.format === 'html' ? template.body : template.source,
    editorState: template.format === 'visual' && template.editorState ? JSON.stringify(template.editorState) : '',
    from: template.from,
    fromName: template.fromName ?? '',
    replyTo: template.replyTo ?? '',
    type: template.type,
  };
}

/** The create or PATCH body: optional fields left empty are null (cleared). */
export function inputOf(draft: Draft) {
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
  return {
    name: draft.name.trim(),
    subject: draft.subject,
    format: draft.format,
    ...(draft.format === 'html' ? { body: draft.body } : { source: draft.body }),
    ...(draft.format === 'visual' ? { editorState: draft.editorState ? (JSON.parse(draft.editorState) as object) : null } : {}),
    from: draft.from.trim(),
    type: draft.type,
    description: draft.description.trim() === '' ? null : draft.description,
    fromName: orNull(draft.fromName),
    replyTo: orNull(draft.replyTo),
  };
}

export const sameDraft = (a: Draft, b: Draft) => (Object.keys(a) as (keyof Draft)[]).every((key) => a[key] === b[key]);

/** A template syntax error's place (docs/decisions/templates.md: 400 TEMPLATE_SYNTAX_ERROR naming line and column). */
export type SyntaxErrorAt = { field: 'subject' | 'body' | undefined; line?: number; column?: number; message: string };

export function syntaxErrorOf(error: unknown): SyntaxErrorAt | undefined {
  const apiError = asApiError(error);
  if (apiError?.code !== 'TEMPLATE_SYNTAX_ERROR') return undefined;
  const details = apiError.details ?? {};
  // An MJML template's source is written in the body editor.
  const field = details.field === 'subject' ? 'subject' : details.field === 'body' || details.field === 'source' ? 'body' : undefined;
  const line = typeof details.line === 'number' ? details.line : undefined;
  const column = typeof details.column === 'number' ? details.column : undefined;
  return { field, line, column, message: apiError.message };
}
