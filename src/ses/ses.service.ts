import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { AppError, badRequest } from '../errors.ts';
import { type EventInput, recordEvents } from '../events/events.service.ts';
import { suppressAddresses } from '../suppressions/suppressions.queries.ts';
import { applyOutcome, findEmails, type MatchedEmail, markProcessed, unsubscribeContacts } from './ses.queries.ts';
import { type SesMessage, type SnsEnvelope, sesMessage, snsEnvelope } from './ses.schemas.ts';
import { snsUrl } from './sns.client.ts';
import { signatureValid } from './sns.signature.ts';

type WebhookDeps = Pick<Deps, 'db' | 'sns'>;
export type WebhookResult = { received: true; result: string };

const invalidSignature = (message: string) => new AppError('INVALID_SIGNATURE', { message });

/**
 * POST /webhooks/ses (docs/decisions/sending.md): an Amazon SNS message carrying SES feedback. Malformed → 400;
 * a certificate URL off Amazon's SNS hosts or a signature that does not verify → 403; only then
 * is anything acted on.
 */
export async function receiveSns(deps: WebhookDeps, body: unknown, log: FastifyBaseLogger): Promise<WebhookResult> {
  const envelope = parseEnvelope(body);
  await verifyEnvelope(deps, envelope);
  switch (envelope.Type) {
    case 'SubscriptionConfirmation': {
      const url = snsUrl(envelope.SubscribeURL);
      if (!url) throw badRequest('The SubscribeURL is not an Amazon SNS address.');
      await deps.sns.confirmSubscription(url);
      log.info({ topicArn: envelope.TopicArn }, 'SNS subscription confirmed');
      return { received: true, result: 'subscription-confirmed' };
    }
    case 'UnsubscribeConfirmation':
      log.info({ topicArn: envelope.TopicArn }, 'SNS subscription ended');
      return { received: true, result: 'unsubscribed' };
    case 'Notification':
      return { received: true, result: await applyNotification(deps, envelope, log) };
  }
}

function parseEnvelope(body: unknown): SnsEnvelope {
  const candidate =
    typeof body === 'object' && body !== null && !('SigningCertURL' in body) && 'SigningCertUrl' in body
      ? { ...body, SigningCertURL: (body as { SigningCertUrl: unknown }).SigningCertUrl }
      : body;
  const parsed = snsEnvelope.safeParse(candidate);
  if (!parsed.success) {
    throw badRequest('This is not an Amazon SNS message.', { details: { issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) } });
  }
  return parsed.data;
}

async function verifyEnvelope(deps: WebhookDeps, envelope: SnsEnvelope) {
  const certUrl = snsUrl(envelope.SigningCertURL, '.pem');
  if (!certUrl) throw invalidSignature('The SigningCertURL is not an Amazon SNS certificate address.');
  const key = await deps.sns.signingKey(certUrl);
  if (!signatureValid(envelope, key)) throw invalidSignature('The SNS signature does not match the message.');
}

const OUTCOME_BY_TYPE = { Bounce: 'bounce', Complaint: 'complaint', Delivery: 'delivery' } as const;

/**
 * The Message-ID header of the mail, which is what our record stores (`<record-id@domain>`).
 * SES's own `mail.messageId` is an id SES made up and we never saw, so it cannot match.
 */
function messageIdsOf(message: SesMessage): string[] {
  const header = message.mail?.headers?.find((h) => h.name.toLowerCase() === 'message-id')?.value ?? message.mail?.commonHeaders?.messageId;
  const bare = header?.trim().replace(/^<|>$/g, '');
  return bare ? [`<${bare}>`, bare] : [];
}

function timestampOf(value: string | undefined): string | null {
  return value && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : null;
}

async function applyNotification(deps: WebhookDeps, envelope: SnsEnvelope, log: FastifyBaseLogger): Promise<string> {
  let json: unknown;
  try {
    json = JSON.parse(envelope.Message);
  } catch {
    throw badRequest('The SNS Message is not an SES notification (not JSON).');
  }
  const parsed = sesMessage.safeParse(json);
  if (!parsed.success || typeof json !== 'object' || json === null) throw badRequest('The SNS Message is not an SES notification.');
  const message = parsed.data;
  const type = message.notificationType ?? message.eventType;
  const outcome = type ? OUTCOME_BY_TYPE[type as keyof typeof OUTCOME_BY_TYPE] : undefined;
  if (!outcome) {
    log.info({ type, snsMessageId: envelope.MessageId }, 'SES notification ignored: not a bounce, complaint or delivery');
    return 'ignored';
  }
  if ((outcome === 'bounce' && !message.bounce) || (outcome === 'complaint' && !message.complaint)) {
    throw badRequest(`The SES ${type} notification has no ${outcome} object.`);
  }
  const messageIds = messageIdsOf(message);
  if (messageIds.length === 0) {
    log.warn({ snsMessageId: envelope.MessageId }, 'SES notification ignored: no Message-ID header');
    return 'ignored';
  }
  return deps.db.transaction(async (tx) => {
    if (!(await markProcessed(tx, envelope.MessageId))) return 'duplicate';
    const matched = await applySes(tx, outcome, message);
    if (matched === 0) {
      log.info({ messageId: messageIds[0], snsMessageId: envelope.MessageId }, 'SES notification ignored: no email record with this Message-ID');
      return 'ignored';
    }
    return 'applied';
  });
}

/** What a feedback report says about a message, from SES or from a DSN or ARF report (src/smtp/feedback.ts). */
export type Feedback =
  | { outcome: 'bounce'; hard: boolean; at: string | null; error: string; data: Record<string, unknown> }
  | { outcome: 'complaint'; at: string | null; data: Record<string, unknown> }
  | { outcome: 'delivery'; at: string | null };

/** The SES notification as Feedback. Undetermined bounces are transient: SES does not say the address is dead. */
function sesFeedback(outcome: 'bounce' | 'complaint' | 'delivery', message: SesMessage): Feedback {
  const bounce = message.bounce;
  if (outcome === 'bounce') {
    const hard = bounce?.bounceType === 'Permanent';
    const error = bounce?.bouncedRecipients?.find((r) => r.diagnosticCode)?.diagnosticCode ?? `SES bounce: ${bounce?.bounceType}/${bounce?.bounceSubType ?? ''}`;
    return { outcome, hard, at: timestampOf(bounce?.timestamp), error, data: { bounceSubType: bounce?.bounceSubType } };
  }
  if (outcome === 'complaint') return { outcome, at: timestampOf(message.complaint?.timestamp), data: { feedbackType: message.complaint?.complaintFeedbackType } };
  return { outcome, at: timestampOf(message.delivery?.timestamp) };
}

const applySes = (tx: Queryable, outcome: 'bounce' | 'complaint' | 'delivery', message: SesMessage) => applyFeedback(tx, messageIdsOf(message), sesFeedback(outcome, message));

/**
 * Applies feedback to the records carrying one of `messageIds`, their contacts and suppression
 * lists, with their events; returns the number matched. The one place where a hard bounce or a
 * complaint reported after delivery changes a record, for the SES feed and the return path alike.
 */
export async function applyFeedback(tx: Queryable, messageIds: string[], feedback: Feedback): Promise<number> {
  const hard = feedback.outcome === 'bounce' && feedback.hard;
  let emails: MatchedEmail[];
  let data: Record<string, unknown> = {};
  let name: string;
  if (feedback.outcome === 'bounce' && !feedback.hard) {
    emails = await findEmails(tx, messageIds);
    name = 'email.bounced';
    data = { bounceType: 'soft', ...feedback.data };
  } else if (feedback.outcome === 'bounce') {
    emails = await applyOutcome(tx, 'bounce', messageIds, feedback.at, feedback.error);
    name = 'email.bounced';
    data = { bounceType: 'hard', ...feedback.data };
  } else if (feedback.outcome === 'complaint') {
    emails = await applyOutcome(tx, 'complaint', messageIds, feedback.at, null);
    name = 'email.complained';
    data = feedback.data;
  } else {
    emails = await applyOutcome(tx, 'delivery', messageIds, feedback.at, null);
    name = 'email.delivered';
  }
  if (emails.length === 0) return 0;

  const events: (EventInput & { projectId: string })[] = [];
  for (const email of emails) {
    if (!email.changed || !email.contact_id) continue;
    events.push({ projectId: email.project_id, contactId: email.contact_id, name, emailId: email.id, data: { ...eventData(email), ...data } });
  }
  if (hard || feedback.outcome === 'complaint') {
    // docs/decisions/sending.md: the address is never sent to again, and the contact is unsubscribed.
    await suppressAddresses(
      tx,
      emails.map((e) => ({ projectId: e.project_id, email: e.to_address, emailId: e.id })),
      hard ? 'hard_bounce' : 'complaint',
    );
    const withContact = emails.filter((e) => e.contact_id).map((e) => ({ projectId: e.project_id, contactId: e.contact_id! }));
    for (const contact of await unsubscribeContacts(tx, withContact)) {
      events.push({ projectId: contact.project_id, contactId: contact.id, name: 'contact.unsubscribed' });
    }
  }
  for (const projectId of new Set(events.map((e) => e.projectId))) {
    await recordEvents(
      tx,
      projectId,
      events.filter((e) => e.projectId === projectId).map(({ projectId: _, ...event }) => event),
    );
  }
  return emails.length;
}

/** the API reference (Events) and docs/decisions/sending.md: email.* events carry the record and what it came from. */
function eventData(email: MatchedEmail): Record<string, unknown> {
  return {
    emailId: email.id,
    ...(email.campaign_id ? { campaignId: email.campaign_id } : {}),
    ...(email.workflow_id ? { workflowId: email.workflow_id } : {}),
    ...(email.template_id ? { templateId: email.template_id } : {}),
  };
}
