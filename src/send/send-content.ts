import type { DataChanges } from '../contacts/data-rules.ts';
import { splitContactData } from '../contacts/data-rules.ts';
import type { Deps } from '../deps.ts';
import { contentOf, type EmailContent } from '../emails/email-content.ts';
import type { NewAttachment } from '../emails/email-record.queries.ts';
import { AppError, type FieldError } from '../errors.ts';
import { checkTemplateSyntax } from '../rendering/render.ts';
import type { Template } from '../templates/templates.schemas.ts';
import { getTemplateForSend } from '../templates/templates.service.ts';
import { type AttachmentInput, MAX_ATTACHMENT_BYTES, type SendInput } from './send.schemas.ts';

/** What a send's records are made of: the template's, with explicit request fields overriding (contentOf). */
export type SendContent = EmailContent;

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
  /** An SMTP submission's: its records send the client's MIME (docs/smtp.md). */
  submissionId?: string;
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
  const sender =
    typeof input.from === 'string'
      ? { fromEmail: input.from, fromName: input.name }
      : { fromEmail: input.from?.email, fromName: input.from ? (input.from.name ?? null) : input.name };
  const content = contentOf(template, { subject: input.subject, html: input.body, ...sender, replyTo: input.reply }, { lowerCaseSender: true });
  if (content.subject === undefined) problems.push(required('subject', 'Required when no template is given.'));
  if (content.html === undefined) problems.push(required('body', 'Required when no template is given.'));
  if (!content.from) problems.push(required('from', 'Required unless the template has a sender.'));
  if (problems.length) throw invalid(problems);
  // Inline sources are checked here; a template's own were checked when it was saved.
  if (input.subject !== undefined) checkTemplateSyntax(input.subject, 'subject');
  if (input.body !== undefined) checkTemplateSyntax(input.body, 'body');
  return content as SendContent;
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
