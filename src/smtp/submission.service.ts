import { randomUUID } from 'node:crypto';
import { type AddressObject, simpleParser } from 'mailparser';
import { NO_DATA_CHANGES } from '../contacts/data-rules.ts';
import type { Deps } from '../deps.ts';
import { wakeDelivery } from '../emails/email-queue.ts';
import { setSubmission } from '../emails/email-record.queries.ts';
import { AppError } from '../errors.ts';
import { writeSends } from '../send/send.service.ts';
import type { PreparedSend } from '../send/send-content.ts';
import { insertSubmission, linkSubmissionRecords } from './smtp.queries.ts';

export type Submission = { projectId: string; mailFrom: string; recipients: string[]; raw: Buffer };
/** The records a submission made (or made the first time, for a repeated Message-ID). */
export type Submitted = { emailIds: string[]; repeated: boolean };

/**
 * One message received over SMTP submission, written as a /v1/send of its envelope recipients
 * through the same code (src/send/send.service.ts): verified sender, contact upsert, suppression,
 * billing limits, records and events, in one transaction with the client's MIME, which delivery
 * sends as it is with our DKIM signature (src/delivery/submitted-mime.ts). Throws the AppError of a refusal.
 */
export async function submitMessage(deps: Deps, submission: Submission): Promise<Submitted> {
  const parsed = await simpleParser(submission.raw, { skipImageLinks: true, skipTextLinks: true });
  const from = firstAddress(parsed.from) ?? { address: submission.mailFrom, name: '' };
  const names = new Map([...addresses(parsed.to), ...addresses(parsed.cc)].map((a) => [a.address.toLowerCase(), a.name]));
  const prepared: PreparedSend = {
    projectId: submission.projectId,
    input: { to: submission.recipients.map((email) => ({ email, ...(names.get(email) ? { name: names.get(email)! } : {}) })) },
    template: undefined,
    content: {
      subject: literal(parsed.subject ?? ''),
      // The record shows the message; what leaves is the client's MIME, untouched.
      html: literal(typeof parsed.html === 'string' ? parsed.html : (parsed.textAsHtml ?? '')),
      from: { email: from.address.toLowerCase(), name: from.name || null },
      replyTo: firstAddress(parsed.replyTo)?.address ?? null,
      contentType: 'TRANSACTIONAL',
    },
    changes: NO_DATA_CHANGES,
    attachments: { items: [], bytes: 0 },
  };
  const id = randomUUID();
  const clientMessageId = parsed.messageId ? parsed.messageId.trim().slice(0, 998) : null;
  const written = await deps.db.transaction(async (tx) => {
    const saved = await insertSubmission(tx, { projectId: submission.projectId, id, clientMessageId, raw: submission.raw }, deps.config.idempotencyTtlHours);
    if (saved.repeated) return { emailIds: saved.emailIds, repeated: true, queued: 0 };
    const [send] = await writeSends(deps, tx, [prepared]);
    if (send instanceof AppError) throw send;
    const emailIds = send!.emails.map((email) => email.email);
    await linkSubmissionRecords(tx, submission.projectId, id, emailIds);
    await setSubmission(tx, submission.projectId, id, emailIds);
    return { emailIds, repeated: false, queued: send!.queued };
  });
  if (written.queued > 0) wakeDelivery(deps.queue, deps.log);
  return { emailIds: written.emailIds, repeated: written.repeated };
}

/** Text the record's renderer must show as it is: a client's message is not a template. */
function literal(text: string): string {
  return `{% raw %}${text.replace(/\{%-?\s*endraw\s*-?%\}/g, '{% endraw %}{{ "{% endraw %}" }}{% raw %}')}{% endraw %}`;
}

function addresses(field: AddressObject | AddressObject[] | undefined): Array<{ address: string; name: string }> {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((object) =>
    object.value.flatMap((a) => (a.address ? [{ address: a.address, name: a.name }] : (a.group ?? []).flatMap((g) => (g.address ? [{ address: g.address, name: g.name }] : [])))),
  );
}

const firstAddress = (field: AddressObject | AddressObject[] | undefined) => addresses(field)[0];
