import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import { recipientLinks } from '../delivery/seams.ts';
import type { EventInput } from '../events/events.service.ts';
import { type RenderedEmail, recipientVariables, render, type TemplateVariables } from '../rendering/render.ts';
import type { ContentType, NewEmail, SourceType } from './emails.queries.ts';

/** Why a record was made SUPPRESSED instead of QUEUED (its `error`, and `data.reason` of email.suppressed). */
export const SUPPRESSION_REASONS = {
  suppressed: "The address is on the project's suppression list (a hard bounce, a complaint or added by hand; GET /suppressions says which).",
  unsubscribed: 'The contact is unsubscribed; MARKETING mail goes only to subscribed contacts.',
} as const;

export type EmailRecordInput = {
  projectId: string;
  /** The verified domain that signs it: the right side of the Message-ID (docs/decisions/sending.md). */
  domainName: string;
  content: { subject: string; html: string; from: { email: string; name: string | null }; replyTo: string | null; contentType: ContentType; headers?: Record<string, string> };
  source: { type: SourceType; campaignId?: string | null; templateId?: string | null; workflowId?: string | null };
  to: { address: string; name: string | null };
  /** The contact the record belongs to; null for a campaign test, which belongs to none. */
  contactId: string | null;
  /** Whose data renders it and whose links it carries (a test's address may have a contact). */
  renderFor: { id: string; email: string; data: Record<string, unknown> } | null;
  /** Extra template variables (a workflow's `event` and `workflow`). */
  variables?: TemplateVariables;
  /** The address is on the suppression list. */
  suppressed: boolean;
  /** The contact's subscription, checked for MARKETING mail; null when it does not apply (a test). */
  subscribed: boolean | null;
  /** Applied to the rendered subject (a test's `[Test]` prefix). */
  subject?: (rendered: string) => string;
};

/**
 * One email record (docs/decisions/sending.md), the same for every path that makes one (/v1/send, workflows,
 * campaign tests; a campaign's audience is one INSERT … SELECT in SQL): rendered for its recipient
 * with its links, QUEUED or SUPPRESSED (a suppressed address; an unsubscribed contact of MARKETING
 * mail) with the email.suppressed event that goes with it.
 */
export function buildEmailRecord(config: Config, input: EmailRecordInput): { record: NewEmail; rendered: RenderedEmail; event: EventInput | null } {
  const id = randomUUID();
  const { content, source } = input;
  const links = input.renderFor ? recipientLinks({ config, projectId: input.projectId, emailId: id, contactId: input.renderFor.id, contentType: content.contentType }) : {};
  const renderFor = input.renderFor ?? { id: '', email: input.to.address, data: {} };
  const rendered = render({ subject: content.subject, html: content.html }, recipientVariables(renderFor, links, input.variables));
  const reason = input.suppressed ? 'suppressed' : content.contentType === 'MARKETING' && input.subscribed === false ? 'unsubscribed' : null;
  const record: NewEmail = {
    id,
    contact_id: input.contactId,
    to_address: input.to.address,
    to_name: input.to.name,
    from_address: content.from.email,
    from_name: content.from.name,
    reply_to: content.replyTo,
    subject: input.subject ? input.subject(rendered.subject) : rendered.subject,
    html: rendered.html,
    text_body: rendered.text,
    headers: content.headers ?? {},
    status: reason ? 'SUPPRESSED' : 'QUEUED',
    source_type: source.type,
    campaign_id: source.campaignId ?? null,
    template_id: source.templateId ?? null,
    workflow_id: source.workflowId ?? null,
    content_type: content.contentType,
    message_id: `<${id}@${input.domainName}>`,
    last_error: reason && SUPPRESSION_REASONS[reason],
  };
  const data = { emailId: id, reason, ...(source.templateId ? { templateId: source.templateId } : {}), ...(source.workflowId ? { workflowId: source.workflowId } : {}) };
  const event = reason && input.contactId ? { contactId: input.contactId, name: 'email.suppressed', emailId: id, data } : null;
  return { record, rendered, event };
}
