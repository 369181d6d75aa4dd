import { findUserById } from '../accounts/accounts.queries.ts';
import type { Deps } from '../deps.ts';
import { storedContent } from '../emails/email-content.ts';
import { sendTestCopy } from '../emails/test-copy.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import { checkTemplateSyntax, recipientVariables, render } from '../rendering/render.ts';
import { type ContentCheck, checkContent, emptyPlaceholders } from './checks.ts';
import { resolveContent } from './formats.ts';
import * as queries from './templates.queries.ts';
import type { PreviewInput, TemplatePreview, TemplateType } from './templates.schemas.ts';
import { getTemplateForSend } from './templates.service.ts';

/**
 * The links of a preview: inert fragments, never signed URLs, so that a click in the preview
 * cannot unsubscribe the contact whose data it shows (docs/decisions/templates.md).
 */
export const PREVIEW_LINKS = { unsubscribeUrl: '#unsubscribe', subscribeUrl: '#subscribe', manageUrl: '#manage' } as const;

/**
 * POST /templates/preview and /templates/{id}/preview: the subject, HTML and text part as sending
 * would make them (MJML rendered as a save would, then the same Liquid renderer), with a contact's
 * data or none; the placeholders that render empty for that contact; and the checks before
 * sending (docs/templates.md). The content is checked first so that its syntax error, the one an
 * editor marks at its line, is the one reported.
 */
export async function previewContent(deps: Deps, projectId: string, input: PreviewInput): Promise<TemplatePreview> {
  const contact = input.contactId ? await queries.findContact(deps.db, projectId, input.contactId) : undefined;
  if (input.contactId && !contact) throw notFound('Contact');
  const content = await resolveContent({ format: input.format, source: input.source, body: input.body });
  checkTemplateSyntax(input.subject, 'subject');
  const recipient = contact ?? { id: '', email: '', data: {} };
  const variables = recipientVariables(recipient, PREVIEW_LINKS);
  const rendered = render({ subject: input.subject, html: content.body }, variables);
  const source = content.source ?? content.body;
  return {
    ...rendered,
    contact: contact ? { id: contact.id, email: contact.email } : null,
    emptyPlaceholders: emptyPlaceholders(`${input.subject}\n${source}`, variables),
    checks: checkContent({ source, html: rendered.html, text: rendered.text, type: input.type ?? 'MARKETING' }),
  };
}

/**
 * The checks of saved content (a campaign's, on create and replace), rendered as the preview
 * renders it with no contact. Content whose render fails with no contact's data (a limit its
 * contacts' data may not reach) answers no checks rather than refusing the save.
 */
export function checkSaved(content: { subject: string; body: string; source: string | null; type: TemplateType }): ContentCheck[] {
  let rendered: { html: string; text: string };
  try {
    rendered = render({ subject: content.subject, html: content.body }, recipientVariables({ id: '', email: '', data: {} }, PREVIEW_LINKS));
  } catch (error) {
    if (error instanceof AppError) return [];
    throw error;
  }
  return checkContent({ source: content.source ?? content.body, html: rendered.html, text: rendered.text, type: content.type });
}

/** POST /templates/{id}/preview: the saved template, with the draft's subject or content when given. */
export async function previewTemplate(deps: Deps, projectId: string, id: string, draft: Partial<PreviewInput>): Promise<TemplatePreview> {
  const template = await getTemplateForSend(deps.db, projectId, id);
  const drafted = draft.body !== undefined || draft.source !== undefined || draft.format !== undefined;
  const format = draft.format ?? template.format;
  const content = drafted
    ? { format, body: draft.body, source: draft.source ?? (format === template.format || template.format !== 'html' ? template.source : undefined) }
    : { format: template.format, body: template.format === 'html' ? template.body : undefined, source: template.format === 'html' ? undefined : template.source };
  return previewContent(deps, projectId, { subject: draft.subject ?? template.subject, ...content, type: draft.type ?? template.type, contactId: draft.contactId });
}

/**
 * POST /templates/{id}/test, as POST /campaigns/{id}/test: one copy of the saved template, `[Test]`
 * in the subject, through the same record and delivery queue as every send. It belongs to no
 * contact (no counter, no contact event); the contact chosen for the preview (`contactId`), or else
 * a contact with that address, lends its data. Without
 * `email`, a signed-in user gets it at their own address; a key must name one.
 */
export async function sendTemplateTest(deps: Deps, projectId: string, id: string, to: string | undefined, userId: string | undefined, contactId?: string) {
  const template = await getTemplateForSend(deps.db, projectId, id);
  const renderAs = contactId ? await queries.findContact(deps.db, projectId, contactId) : undefined;
  if (contactId && !renderAs) throw notFound('Contact');
  const address = (to ?? (userId ? (await findUserById(deps.db, userId))?.email : undefined))?.toLowerCase();
  if (!address) throw badRequest('email is required: the address to send the test to.', { details: { field: 'email' } });
  const emailId = await sendTestCopy(deps, projectId, {
    to: address,
    content: storedContent(template),
    source: { type: 'TRANSACTIONAL', templateId: template.id },
    renderAs,
  });
  return { emailId, to: address };
}
