import { randomUUID } from 'node:crypto';
import { assertBillingAllows } from '../billing/billing.guard.ts';
import { upsertContactByEmail } from '../contacts/contacts.queries.ts';
import { splitContactData } from '../contacts/data-rules.ts';
import { wakeDelivery } from '../delivery/delivery.jobs.ts';
import { recipientLinks } from '../delivery/seams.ts';
import type { Deps } from '../deps.ts';
import { assertSenderAllowed, signingKeyFor } from '../domains/domains.service.ts';
import { insertAttachments, insertEmails, findSuppressed, type ContentType, type NewAttachment, type NewEmail } from '../emails/emails.queries.ts';
import { type EventInput, recordEvents, subscriptionEventName } from '../events/events.service.ts';
import { AppError, type FieldError } from '../http/errors.ts';
import { checkTemplateSyntax, recipientVariables, render } from '../rendering/render.ts';
import { getTemplateForSend } from '../templates/templates.service.ts';
import type { Template } from '../templates/templates.schemas.ts';
import { type AttachmentInput, MAX_ATTACHMENT_BYTES, MAX_MESSAGE_BYTES, type SendInput } from './send.schemas.ts';

export type SendResult = { emails: Array<{ contact: { id: string; email: string }; email: string }>; timestamp: string };

/** Why a record was made SUPPRESSED instead of QUEUED (its `error`, and `data.reason` of email.suppressed). */
export const SUPPRESSION_REASONS = {
  suppressed: 'The address is on the suppression list (an earlier hard bounce or complaint).',
  unsubscribed: 'The contact is unsubscribed; MARKETING mail goes only to subscribed contacts.',
} as const;

const invalid = (errors: FieldError[]) => new AppError('VALIDATION_ERROR', { errors });
const required = (field: string, message: string): FieldError => ({ field, code: 'invalid_type', message, received: 'undefined' });

/** Subject, body, sender and type of a send: the template's, with explicit request fields overriding. */
function resolveContent(input: SendInput, template: Template | undefined) {
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

/** Decodes and measures the attachments (api.md Limits: 10 MB decoded in total). */
function decodeAttachments(attachments: AttachmentInput[]): { items: NewAttachment[]; bytes: number } {
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

/**
 * POST /v1/send (api.md; contract §6). Each recipient in order: its own contact upsert (new →
 * unsubscribed unless `subscribed` is given; a change emits the subscription event) and its own
 * rendered record. Everything is written in one transaction, and the delivery worker is woken once it
 * committed: the request never talks to SMTP. Suppressed addresses, and unsubscribed contacts of MARKETING mail, get a
 * SUPPRESSED record, an email.suppressed event, and no message.
 */
export async function sendEmails(deps: Deps, projectId: string, input: SendInput): Promise<SendResult> {
  const template = input.template ? await getTemplateForSend(deps.db, projectId, input.template) : undefined;
  const content = resolveContent(input, template);
  const key = await signingKeyFor(deps.db, projectId, content.from.email);
  if (!key) await assertSenderAllowed(deps.db, projectId, content.from.email); // throws the 403
  const changes = splitContactData(input.data, { oneOffAllowed: true });
  const attachments = decodeAttachments(input.attachments ?? []);
  const recipients = input.to;

  const sent = await deps.db.transaction(async (tx) => {
    const suppressed = await findSuppressed(tx, projectId, recipients.map((r) => r.email));
    const records: NewEmail[] = [];
    const events: EventInput[] = [];
    const answer: SendResult['emails'] = [];
    for (const recipient of recipients) {
      const contact = await upsertContactByEmail(tx, projectId, { email: recipient.email, subscribed: input.subscribed ?? null, subscribedWhenNew: false, data: changes });
      if (!contact.is_new && contact.was_subscribed !== null && contact.was_subscribed !== contact.subscribed) {
        events.push({ contactId: contact.id, name: subscriptionEventName(contact.subscribed) });
      }
      const id = randomUUID();
      const links = recipientLinks({ config: deps.config, projectId, emailId: id, contactId: contact.id, contentType: content.contentType });
      const variables = recipientVariables({ id: contact.id, email: contact.email, data: { ...contact.data, ...changes.oneOff } }, links);
      const rendered = render({ subject: content.subject, html: content.html }, variables);
      const messageBytes = Buffer.byteLength(rendered.html) + Buffer.byteLength(rendered.text) + Math.ceil((attachments.bytes * 4) / 3);
      if (messageBytes > MAX_MESSAGE_BYTES) {
        throw invalid([{ field: 'body', code: 'too_big', message: `The whole message may be at most ${MAX_MESSAGE_BYTES} bytes.` }]);
      }
      const reason = suppressed.has(contact.email) ? 'suppressed' : content.contentType === 'MARKETING' && !contact.subscribed ? 'unsubscribed' : null;
      records.push({
        id,
        contact_id: contact.id,
        to_address: contact.email,
        to_name: recipient.name ?? null,
        from_address: content.from.email,
        from_name: content.from.name,
        reply_to: content.replyTo,
        subject: rendered.subject,
        html: rendered.html,
        text_body: rendered.text,
        headers: input.headers ?? {},
        status: reason ? 'SUPPRESSED' : 'QUEUED',
        source_type: 'TRANSACTIONAL',
        campaign_id: null,
        template_id: template?.id ?? null,
        workflow_id: null,
        content_type: content.contentType,
        // contract §6: <record-id@sending-domain>, the verified domain that signs it.
        message_id: `<${id}@${key!.domainName}>`,
        last_error: reason && SUPPRESSION_REASONS[reason],
      });
      if (reason) {
        const data = { emailId: id, reason, ...(template ? { templateId: template.id } : {}) };
        events.push({ contactId: contact.id, name: 'email.suppressed', emailId: id, data });
      }
      answer.push({ contact: { id: contact.id, email: contact.email }, email: id });
    }
    await assertBillingAllows(tx, projectId, 'TRANSACTIONAL', records.filter((record) => record.status === 'QUEUED').length);
    await insertEmails(tx, projectId, records);
    const queued = records.filter((record) => record.status === 'QUEUED').map((record) => record.id);
    await insertAttachments(tx, projectId, queued, attachments.items);
    await recordEvents(tx, projectId, events);
    return { emails: answer, timestamp: new Date().toISOString(), queued: queued.length };
  });
  // After the commit, so the run finds the records; one wake-up serves a burst of sends.
  if (sent.queued) wakeDelivery(deps.queue, deps.log);
  return { emails: sent.emails, timestamp: sent.timestamp };
}
