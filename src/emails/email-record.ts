import { randomUUID } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Queryable } from '../db/index.ts';
import { type EventInput, recordEvents } from '../events/events.service.ts';
import type { RenderedEmail, TemplateVariables } from '../rendering/render.ts';
import type { EmailContent } from './email-content.ts';
import { type CampaignRecordSource, type ContactRange, insertCampaignRecords, insertEmails, type RecipientSelection, suppressedCampaignRecords } from './email-record.queries.ts';
import { renderEmail } from './email-rendering.ts';
import type { NewEmail, SourceType } from './emails.queries.ts';

/** Why a record was made SUPPRESSED instead of QUEUED (its `error`, and `data.reason` of email.suppressed). */
export const SUPPRESSION_REASONS = {
  suppressed: "The address is on the project's suppression list (a hard bounce, a complaint or added by hand; GET /suppressions says which).",
  unsubscribed: 'The contact is unsubscribed; MARKETING mail goes only to subscribed contacts.',
} as const;

export type EmailRecordInput = {
  projectId: string;
  /** The verified domain that signs it: the right side of the Message-ID (docs/decisions/sending.md). */
  domainName: string;
  content: EmailContent & { headers?: Record<string, string> };
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
  /** The SMTP submission whose MIME the record sends instead of its rendered content (docs/smtp.md). */
  submissionId?: string;
};

/** A record made for one project and the events written with it, in order (writeEmailRecords). */
export type MadeRecord = { projectId: string; record: NewEmail; events: EventInput[] };

/**
 * One email record (docs/decisions/sending.md), the same for every path that makes one (/v1/send, SMTP
 * submission, workflows, test copies; a campaign's audience is makeCampaignRecords): rendered for its recipient
 * with its links, QUEUED or SUPPRESSED (a suppressed address; an unsubscribed contact of MARKETING
 * mail) with the email.suppressed event that goes with it. Nothing is written: writeEmailRecords does.
 */
export function buildEmailRecord(config: Config, input: EmailRecordInput): MadeRecord & { rendered: RenderedEmail } {
  const id = randomUUID();
  const { content, source } = input;
  const rendered = renderEmail(config, {
    projectId: input.projectId,
    emailId: id,
    contentType: content.contentType,
    content: { subject: content.subject, html: content.html },
    recipient: input.renderFor ?? { id: '', email: input.to.address, data: {} },
    linksOf: input.renderFor ? input.renderFor.id : null,
    variables: input.variables,
  });
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
    submission_id: input.submissionId ?? null,
  };
  const events = reason && input.contactId ? [suppressedEvent({ id, contactId: input.contactId, reason, source })] : [];
  return { projectId: input.projectId, record, rendered, events };
}

/**
 * Writes records made by buildEmailRecord with their events, the one write of every way of sending
 * a record at a time (/v1/send and SMTP submission, workflows, test copies): per project, in the
 * order they first appear, the records in one insert per 1,000 (insertEmails), then their events
 * in one recordEvents (email.suppressed, and what a caller put before it: a send's
 * contact.subscribed or contact.unsubscribed). Their email.sent is recorded at the hand-off
 * (email-status.ts), a campaign's records by makeCampaignRecords.
 */
export async function writeEmailRecords(tx: Queryable, made: MadeRecord[]): Promise<void> {
  const byProject = new Map<string, MadeRecord[]>();
  for (const item of made) {
    const items = byProject.get(item.projectId);
    if (items) items.push(item);
    else byProject.set(item.projectId, [item]);
  }
  for (const [projectId, items] of byProject) {
    await insertEmails(
      tx,
      projectId,
      items.map((item) => item.record),
    );
    await recordEvents(
      tx,
      projectId,
      items.flatMap((item) => item.events),
    );
  }
}

/**
 * The email.suppressed event of a SUPPRESSED record (docs/decisions/sending.md service events): `data`
 * names the record, the reason and the ids of what made it.
 */
export function suppressedEvent(record: {
  id: string;
  contactId: string;
  reason: keyof typeof SUPPRESSION_REASONS;
  source: { campaignId?: string | null; templateId?: string | null; workflowId?: string | null };
}): EventInput {
  const { id, source } = record;
  const data = {
    emailId: id,
    reason: record.reason,
    ...(source.campaignId ? { campaignId: source.campaignId } : {}),
    ...(source.templateId ? { templateId: source.templateId } : {}),
    ...(source.workflowId ? { workflowId: source.workflowId } : {}),
  };
  return { contactId: record.contactId, name: 'email.suppressed', emailId: id, data };
}

/**
 * A batch of a campaign's records (docs/decisions/campaigns.md): one per contact of `selection` in
 * `range`, made in SQL by one INSERT … SELECT (email-record.queries.ts), QUEUED or SUPPRESSED as
 * buildEmailRecord makes them, with the email.suppressed events that go with them. Their content
 * is rendered at delivery (email-rendering.ts).
 */
export async function makeCampaignRecords(tx: Queryable, campaign: CampaignRecordSource, selection: RecipientSelection, range: ContactRange, messageDomain: string): Promise<void> {
  await insertCampaignRecords(tx, campaign, selection, range, { messageDomain, suppressedReason: SUPPRESSION_REASONS.suppressed });
  const suppressed = await suppressedCampaignRecords(tx, campaign.project_id, campaign.id, range);
  const source = { campaignId: campaign.id, templateId: campaign.template_id };
  const events = suppressed.flatMap((record) => (record.contact_id ? [suppressedEvent({ id: record.id, contactId: record.contact_id, reason: 'suppressed', source })] : []));
  await recordEvents(tx, campaign.project_id, events);
}
