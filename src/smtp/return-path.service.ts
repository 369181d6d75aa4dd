import type { ParsedMail } from 'mailparser';
import type { Deps } from '../deps.ts';
import { applyFeedback, applyLateRefusal, emailEventData } from '../emails/email-feedback.ts';
import { findEmail } from '../emails/emails.queries.ts';
import { recordEvents } from '../events/events.service.ts';
import { readReport } from './feedback.ts';
import { findVerifiedDomainProject } from './smtp.queries.ts';

/**
 * A message to a record's VERP address (docs/smtp.md): a DSN, an ARF complaint or an auto-reply,
 * applied to that record by the code the SES feed uses (src/emails/email-feedback.ts applyFeedback):
 * hard bounce → BOUNCED and suppressed; soft → an email.bounced event; complaint → COMPLAINED
 * and suppressed; a refusal about the sender → FAILED; an auto-reply → email.auto_replied.
 * Returns what it did, for the log.
 */
export async function applyReturnedMessage(deps: Deps, target: { emailId: string; domain: string }, raw: Buffer, parsed: ParsedMail): Promise<string> {
  const projectId = await findVerifiedDomainProject(deps.db, target.domain);
  if (!projectId) return 'no verified domain';
  const record = await findEmail(deps.db, projectId, target.emailId);
  if (!record?.message_id) return 'no record';
  const report = readReport(raw, parsed);
  const messageIds = [record.message_id];
  return deps.db.transaction(async (tx) => {
    switch (report.kind) {
      case 'bounce':
        if (report.class === 'failed') {
          await applyLateRefusal(tx, record, report.error);
          return 'failed';
        }
        await applyFeedback(tx, messageIds, {
          outcome: 'bounce',
          hard: report.class === 'hard',
          at: null,
          error: report.error,
          data: { status: report.status, error: report.error },
        });
        return `${report.class} bounce`;
      case 'complaint':
        await applyFeedback(tx, messageIds, { outcome: 'complaint', at: null, data: { feedbackType: report.feedbackType } });
        return 'complaint';
      case 'auto_reply':
        if (record.contact_id) {
          const from = parsed.from?.value[0]?.address ?? null;
          await recordEvents(tx, projectId, [
            { contactId: record.contact_id, name: 'email.auto_replied', emailId: record.id, data: { ...emailEventData(record), from, subject: report.subject } },
          ]);
        }
        return 'auto-reply';
      default:
        return report.kind;
    }
  });
}
