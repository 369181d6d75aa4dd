import type { Queryable } from '../db/index.ts';
import { type EventInput, recordEvents } from '../events/events.service.ts';
import { suppressAddresses, unsubscribeForSuppression } from '../suppressions/suppressions.queries.ts';
import { applyOutcome, findReported, type MatchedEmail } from './email-feedback.queries.ts';
import { failDelivered } from './email-status.queries.ts';
import type { EmailRow } from './emails.queries.ts';

/**
 * What the outside world reports about a record after its hand-off (docs/decisions/sending.md,
 * docs/smtp.md), written with the events it emits: the SES feed (src/ses/) and the return path
 * (src/smtp/return-path.service.ts) report deliveries, bounces, complaints and late refusals.
 */

/** What a feedback report says about a message, from SES or from a DSN or ARF report (src/smtp/feedback.ts). */
export type Feedback =
  | { outcome: 'bounce'; hard: boolean; at: string | null; error: string; data: Record<string, unknown> }
  | { outcome: 'complaint'; at: string | null; data: Record<string, unknown> }
  | { outcome: 'delivery'; at: string | null };

/** the API reference (Events) and docs/decisions/sending.md: email.* events carry the record and what it came from. */
export function emailEventData(email: Pick<EmailRow, 'id' | 'campaign_id' | 'template_id' | 'workflow_id'>): Record<string, unknown> {
  return {
    emailId: email.id,
    ...(email.campaign_id ? { campaignId: email.campaign_id } : {}),
    ...(email.workflow_id ? { workflowId: email.workflow_id } : {}),
    ...(email.template_id ? { templateId: email.template_id } : {}),
  };
}

/**
 * Applies feedback to the records carrying one of `messageIds`, their contacts and suppression
 * lists, with their events; returns the number matched. The one place where a delivery, a hard
 * bounce or a complaint reported after the hand-off changes a record, for the SES feed and the
 * return path alike: a hard bounce → BOUNCED, a complaint → COMPLAINED, both suppressed with the
 * contact unsubscribed; a soft bounce only records email.bounced.
 */
export async function applyFeedback(tx: Queryable, messageIds: string[], feedback: Feedback): Promise<number> {
  const hard = feedback.outcome === 'bounce' && feedback.hard;
  let emails: MatchedEmail[];
  let data: Record<string, unknown> = {};
  let name: string;
  if (feedback.outcome === 'bounce' && !feedback.hard) {
    emails = await findReported(tx, messageIds);
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
    events.push({ projectId: email.project_id, contactId: email.contact_id, name, emailId: email.id, data: { ...emailEventData(email), ...data } });
  }
  if (hard || feedback.outcome === 'complaint') {
    // docs/decisions/sending.md: the address is never sent to again, and the contact is unsubscribed.
    await suppressAddresses(
      tx,
      emails.map((e) => ({ projectId: e.project_id, email: e.to_address, emailId: e.id })),
      hard ? 'hard_bounce' : 'complaint',
    );
    // One statement per project, in project order (on Citus a row lock needs the project as a constant).
    for (const projectId of [...new Set(emails.map((e) => e.project_id))].sort()) {
      const contactIds = emails.flatMap((e) => (e.project_id === projectId && e.contact_id ? [e.contact_id] : []));
      for (const contactId of await unsubscribeForSuppression(tx, projectId, { contactIds })) {
        events.push({ projectId, contactId, name: 'contact.unsubscribed' });
      }
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

/**
 * A DSN's refusal about the sender or the message after the hand-off (docs/smtp.md): the record
 * FAILED with the reason (failDelivered) and its email.failed event, unless it had already
 * bounced, been complained about or failed.
 */
export async function applyLateRefusal(tx: Queryable, record: Pick<EmailRow, 'project_id' | 'id' | 'campaign_id' | 'template_id' | 'workflow_id'>, error: string): Promise<void> {
  const failed = await failDelivered(tx, record.project_id, record.id, error);
  if (failed?.contact_id) {
    await recordEvents(tx, record.project_id, [{ contactId: failed.contact_id, name: 'email.failed', emailId: record.id, data: { ...emailEventData(record), error } }]);
  }
}
