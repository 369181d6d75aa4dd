import { findUserById } from '../accounts/accounts.queries.ts';
import type { Deps } from '../deps.ts';
import { badRequest, notFound } from '../errors.ts';
import { checkTemplateSyntax, recipientVariables, render } from '../rendering/render.ts';
import { sendTestCopy } from '../send/test-copy.ts';
import * as queries from './templates.queries.ts';
import type { PreviewInput, TemplatePreview } from './templates.schemas.ts';
import { getTemplateForSend } from './templates.service.ts';

/**
 * The links of a preview: inert fragments, never signed URLs, so that a click in the preview
 * cannot unsubscribe the contact whose data it shows (docs/decisions/templates.md).
 */
export const PREVIEW_LINKS = { unsubscribeUrl: '#unsubscribe', subscribeUrl: '#subscribe', manageUrl: '#manage' } as const;

/**
 * POST /templates/preview and /templates/{id}/preview: the subject, HTML and text part as sending
 * would make them (the same renderer), with a contact's data or none. The body is checked first so
 * that its syntax error, the one an editor marks at its line, is the one reported.
 */
export async function previewContent(deps: Deps, projectId: string, input: PreviewInput): Promise<TemplatePreview> {
  const contact = input.contactId ? await queries.findContact(deps.db, projectId, input.contactId) : undefined;
  if (input.contactId && !contact) throw notFound('Contact');
  checkTemplateSyntax(input.body, 'body');
  checkTemplateSyntax(input.subject, 'subject');
  const recipient = contact ?? { id: '', email: '', data: {} };
  const rendered = render({ subject: input.subject, html: input.body }, recipientVariables(recipient, PREVIEW_LINKS));
  return { ...rendered, contact: contact ? { id: contact.id, email: contact.email } : null };
}

/** POST /templates/{id}/preview: the saved template, with the draft's subject or body when given. */
export async function previewTemplate(deps: Deps, projectId: string, id: string, draft: Partial<PreviewInput>): Promise<TemplatePreview> {
  const template = await getTemplateForSend(deps.db, projectId, id);
  return previewContent(deps, projectId, { subject: draft.subject ?? template.subject, body: draft.body ?? template.body, contactId: draft.contactId });
}

/**
 * POST /templates/{id}/test, as POST /campaigns/{id}/test: one copy of the saved template, `[Test]`
 * in the subject, through the same record and delivery queue as every send. It belongs to no
 * contact (no counter, no contact event); a contact with that address lends its data. Without
 * `email`, a signed-in user gets it at their own address; a key must name one.
 */
export async function sendTemplateTest(deps: Deps, projectId: string, id: string, to: string | undefined, userId: string | undefined) {
  const template = await getTemplateForSend(deps.db, projectId, id);
  const address = (to ?? (userId ? (await findUserById(deps.db, userId))?.email : undefined))?.toLowerCase();
  if (!address) throw badRequest('email is required: the address to send the test to.', { details: { field: 'email' } });
  const emailId = await sendTestCopy(deps, projectId, {
    to: address,
    content: { subject: template.subject, html: template.body, from: { email: template.from, name: template.fromName }, replyTo: template.replyTo, contentType: template.type },
    source: { type: 'TRANSACTIONAL', templateId: template.id },
  });
  return { emailId, to: address };
}
