import type { FastifyBaseLogger } from 'fastify';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { applyFeedback, type Feedback } from '../emails/email-feedback.ts';
import { AppError, badRequest } from '../errors.ts';
import { markProcessed } from './ses.queries.ts';
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
