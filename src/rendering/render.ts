import { AppError } from '../errors.ts';
import { type CompiledTemplate, compile, LIMITS, type Mode, renderCompiled } from './engine.ts';
import { htmlToText } from './text.ts';

export type { CompiledTemplate } from './engine.ts';
/**
 * Rendering of an email's subject and HTML body (docs/decisions/templates.md), used by /v1/send, campaigns and
 * workflows. Pure: no I/O; compiled templates are cached by source hash.
 *
 * - Placeholders `{{name}}`, `{{data.plan}}`, `{{name ?? "friend"}}` (fallback when missing, null
 *   or ''), and Liquid tags and filters. Unknown variables render empty.
 * - The body escapes every value (`{{ x | raw }}` opts out); the subject is plain text: never
 *   escaped, CR/LF collapsed to spaces, trimmed, and cut to 998 characters (RFC 5322 §2.1.1).
 */
export { LIMITS } from './engine.ts';
export { htmlToText } from './text.ts';

export const MAX_SUBJECT_CHARS = 998;

export type EmailContent = { subject: string; html: string };
export type RenderedEmail = { subject: string; html: string; text: string };
export type TemplateVariables = Record<string, unknown>;

/** Parses a template for repeated rendering; broken syntax → 400 naming line and column. */
export function compileTemplate(source: string, mode: Mode = 'html'): CompiledTemplate {
  return compile(source, mode);
}

/**
 * Throws 400 TEMPLATE_SYNTAX_ERROR (details `{ field?, line, column }`) when `source` does not parse.
 * `field` (e.g. 'subject', 'body') is named in the message. A passing check warms the cache.
 */
export function checkTemplateSyntax(source: string, field?: string): void {
  compile(source, field === 'subject' ? 'plain' : 'html', field);
}

/** Renders one email. Subject and body failures (limits included) → 400 TEMPLATE_RENDER_ERROR. */
export function render(content: EmailContent, variables: TemplateVariables): RenderedEmail {
  const subject = renderSubject(content.subject, variables);
  const html = renderCompiled(compile(content.html, 'html', 'body'), variables, LIMITS.htmlChars, 'body');
  let text: string;
  try {
    text = htmlToText(html);
  } catch (error) {
    throw new AppError('TEMPLATE_RENDER_ERROR', { message: `The text part could not be generated: ${(error as Error).message}` });
  }
  return { subject, html, text };
}

/** A subject line: plain text, one line, at most 998 characters. */
export function renderSubject(source: string, variables: TemplateVariables): string {
  const rendered = renderCompiled(compile(source, 'plain', 'subject'), variables, LIMITS.subjectChars, 'subject');
  return toHeaderLine(rendered);
}

/** Collapses CR/LF runs to one space, trims, and cuts at 998 without splitting a surrogate pair. */
export function toHeaderLine(value: string): string {
  const line = value.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  if (line.length <= MAX_SUBJECT_CHARS) return line;
  const cut = /[\uD800-\uDBFF]/.test(line[MAX_SUBJECT_CHARS - 1]!) ? MAX_SUBJECT_CHARS - 1 : MAX_SUBJECT_CHARS;
  return line.slice(0, cut).trimEnd();
}

export type Recipient = { id: string; email: string; data: Record<string, unknown> };
export type RecipientLinks = { unsubscribeUrl?: string; subscribeUrl?: string; manageUrl?: string };

/**
 * The variables of one recipient (docs/decisions/templates.md): contact data at top level and under `data`
 * (callers merge one-off `{ value, persistent: false }` values into `data` first), then any extra
 * context (`event`, `workflow`, …), then the reserved names, which nothing can shadow.
 */
export function recipientVariables(recipient: Recipient, links: RecipientLinks = {}, extra: TemplateVariables = {}): TemplateVariables {
  const variables: TemplateVariables = { ...recipient.data, ...extra, data: recipient.data, id: recipient.id, email: recipient.email };
  // Read through, not copied: the links may be signed on first read (lazyLinkUrls), so a template
  // that never names them costs no HMAC.
  for (const name of LINK_VARIABLES) Object.defineProperty(variables, name, { get: () => links[name] ?? '', enumerable: true });
  return variables;
}

const LINK_VARIABLES = ['unsubscribeUrl', 'subscribeUrl', 'manageUrl'] as const;
