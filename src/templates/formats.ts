import { z } from 'zod';
import { AppError } from '../errors.ts';
import { mjmlToHtml } from '../rendering/mjml.ts';
import { checkTemplateSyntax } from '../rendering/render.ts';

/**
 * How a template's (or a campaign's own) content is written (docs/templates.md): `html` is its
 * own source; `mjml` and `visual` keep MJML in `source` (and, for `visual`, the editor's state in
 * `editorState`) and `body` is the HTML rendered from it on every save, read-only.
 */
export const FORMATS = ['html', 'mjml', 'visual'] as const;
export type ContentFormat = (typeof FORMATS)[number];

export const MAX_SOURCE = 1_000_000;
export const MAX_EDITOR_STATE = 5_000_000;

/** The request fields of a format, shared by templates and campaigns. */
export const formatFields = {
  format: z.enum(FORMATS).optional().describe('html (default), mjml or visual'),
  source: z.string().min(1).max(MAX_SOURCE).optional().describe('the text the author edits: MJML for mjml and visual; for html, the body itself'),
  editorState: z
    .unknown()
    .refine((value) => value === null || (typeof value === 'object' && JSON.stringify(value).length <= MAX_EDITOR_STATE), {
      message: `Must be a JSON object or null, at most ${MAX_EDITOR_STATE} characters.`,
    })
    .optional()
    .describe("the visual editor's own state, opaque"),
};

/** The response fields of a format. */
export const formatResponseFields = {
  format: z.enum(FORMATS),
  source: z.string().describe('what the author edits (the HTML itself for html)'),
  editorState: z.unknown().nullable(),
};

/** Stored content: `source` is null for `html` (the body is its source). */
export type StoredContent = { format: ContentFormat; source: string | null; editorState: unknown; body: string };
export type ContentInput = { format?: ContentFormat; source?: string; editorState?: unknown; body?: string };

const invalid = (field: string, message: string) => new AppError('VALIDATION_ERROR', { errors: [{ field, code: 'custom', message }] });

/** True when a write names any content field (so the content is to be resolved again). */
export function touchesContent(input: ContentInput): boolean {
  return input.format !== undefined || input.source !== undefined || input.editorState !== undefined || input.body !== undefined;
}

/**
 * The content a write leaves, from the fields given over the stored content (none on create).
 * Liquid is checked in the source first (its lines are the author's), then MJML rendered (400
 * with the line), then the rendered body checked again. Writing `body` with mjml or visual is a
 * 422; leaving `visual` is allowed (the editor's state is dropped), and MJML becoming HTML keeps
 * the rendered HTML as the new source.
 */
export async function resolveContent(input: ContentInput, current?: StoredContent): Promise<StoredContent> {
  const format = input.format ?? current?.format ?? 'html';
  if (format === 'html') {
    const body = input.body ?? input.source ?? current?.body;
    if (body === undefined) throw invalid('body', 'Required');
    checkTemplateSyntax(body, 'body');
    return { format, source: null, editorState: null, body };
  }
  if (input.body !== undefined) {
    throw invalid('body', `body is rendered from source when format is ${format}: write source instead.`);
  }
  const source = input.source ?? current?.source ?? undefined;
  if (source === undefined || source === null) throw invalid('source', `Required when format is ${format}.`);
  checkTemplateSyntax(source, 'source');
  const body = await mjmlToHtml(source, 'source');
  checkTemplateSyntax(body, 'body');
  const editorState = format === 'visual' ? (input.editorState !== undefined ? input.editorState : (current?.editorState ?? null)) : null;
  return { format, source, editorState, body };
}

/** The response's view of stored content. */
export function contentOut(content: { format: ContentFormat; source: string | null; editorState: unknown; body: string }) {
  return { format: content.format, source: content.source ?? content.body, editorState: content.editorState ?? null };
}
