import type { DataChanges } from '../contacts/data-rules.ts';
import { splitContactData } from '../contacts/data-rules.ts';
import type { Deps } from '../deps.ts';
import type { ContentType, NewAttachment } from '../emails/emails.queries.ts';
import { AppError, type FieldError } from '../errors.ts';
import { checkTemplateSyntax } from '../rendering/render.ts';
import type { Template } from '../templates/templates.schemas.ts';
import { getTemplateForSend } from '../templates/templates.service.ts';
import { type AttachmentInput, MAX_ATTACHMENT_BYTES, type SendInput } from './send.schemas.ts';

/** What a send's records are made of: the template's, with explicit request fields overriding. */
export type SendContent = {
  subject: string;
  html: string;
  from: { email: string; name: string | null };
  replyTo: string | null;
  contentType: ContentType;
};

/**
 * A /v1/send request checked and resolved, before anything is written: everything that can refuse
 * it with a 4xx has been done but the checks its write makes for many requests at once (the sender
 * domain) and those that need the contacts (rendering, billing).
 */
export type PreparedSend = {
  projectId: string;
  input: SendInput;
  template: Template | undefined;
  content: SendContent;
  changes: DataChanges;
  attachments: { items: NewAttachment[]; bytes: number };
};

export const invalid = (errors: FieldError[]) => new AppError('VALIDATION_ERROR', { errors });
const required = (field: string, message: string): FieldError => ({ field, code: 'invalid_type', message, received: 'undefined' });

/** Checks a request and resolves its template, content, contact data and attachments. */
export async function prepareSend(deps: Deps, projectId: string, input: SendInput): Promise<PreparedSend> {
  const template = input.template ? await getTemplateForSend(deps.db, projectId, input.template) : undefined;
  const content = resolveContent(input, template);
  const changes = splitContactData(input.data, { oneOffAllowed: true });
  const attachments = decodeAttachments(input.attachments ?? []);
  return { projectId, input, template, content, changes, attachments };
}

function resolveContent(input: SendInput, template: Template | undefined): SendContent {
  const problems: FieldError[] = [];
  const subject = input.subject ?? template?.subject;
  const html = input.body ?? template?.body;
  if (subject === undefined) problems.push(required('subject', 'Required when no template is given.'));
  if (html === undefined) problems.push(required('body', 'Required when no template is given.'));
  let from: { email: string; name: string | null } | undefined;
  if (typeof input.from === 'string') from = { email: input.from, name: input.name ?? template?.fromName ?? null };
  else if (input.from) from = { email: input.from.email, name: input.from.name ?? null };
  else if (template) from = { email: template.from.toLowerCase(), name: input.name ?? template.fromName };
  if (!from) problems.push(required('from', 'Required unless the template has a sender.'));
  if (problems.length) throw invalid(problems);
  // Inline sources are checked here; a template's own were checked when it was saved.
  if (input.subject !== undefined) checkTemplateSyntax(input.subject, 'subject');
  if (input.body !== undefined) checkTemplateSyntax(input.body, 'body');
  const contentType: ContentType = template?.type ?? 'TRANSACTIONAL';
  return { subject: subject!, html: html!, from: from!, replyTo: input.reply ?? template?.replyTo ?? null, contentType };
}

/** Decodes and measures the attachments (the API reference (Limits): 10 MB decoded in total). */
function decodeAttachments(attachments: AttachmentInput[]): PreparedSend['attachments'] {
  let bytes = 0;
  const items = attachments.map((attachment) => {
    const decoded = Buffer.from(attachment.content, 'base64');
    bytes += decoded.length;
    return {
      filename: attachment.filename,
      contentType: attachment.contentType,
      contentId: attachment.contentId ?? null,
      disposition: attachment.disposition,
      // Canonical base64: the database decodes it, and it must not choke on a client's line breaks.
      base64: decoded.toString('base64'),
    };
  });
  if (bytes > MAX_ATTACHMENT_BYTES) {
    throw invalid([{ field: 'attachments', code: 'too_big', message: `Attachments may total at most ${MAX_ATTACHMENT_BYTES} bytes decoded; these are ${bytes}.` }]);
  }
  return { items, bytes };
}
