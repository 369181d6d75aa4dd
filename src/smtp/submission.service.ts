import { randomUUID } from 'node:crypto';
import { type AddressObject, simpleParser } from 'mailparser';
import { NO_DATA_CHANGES } from '../contacts/data-rules.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { writeSends } from '../send/send.service.ts';
import type { PreparedSend } from '../send/send-content.ts';
import { deleteSubmissions, insertSubmissions, linkSubmissionRecords, type NewSubmission } from './smtp.queries.ts';

export type Submission = { projectId: string; mailFrom: string; recipients: string[]; raw: Buffer };
/** The records a submission made (or made the first time, for a repeated Message-ID). */
export type Submitted = { emailIds: string[]; repeated: boolean };
/** A written submission: its answer, and how many of its records wait for delivery. */
export type WrittenSubmission = Submitted & { queued: number };

/** A submission read: what its /v1/send writes, with the id and the client's Message-ID its row gets. */
export type ParsedSubmission = NewSubmission & { projectId: string; prepared: PreparedSend };

/**
 * One message received over SMTP submission as a /v1/send of its envelope recipients
 * (docs/smtp.md): the record shows its subject and body, the From header is its sender (checked
 * against the verified domains when written); what leaves is the client's MIME, untouched.
 */
export async function parseSubmission(submission: Submission): Promise<ParsedSubmission> {
  const parsed = await simpleParser(submission.raw, { skipImageLinks: true, skipTextLinks: true });
  const from = firstAddress(parsed.from) ?? { address: submission.mailFrom, name: '' };
  const names = new Map([...addresses(parsed.to), ...addresses(parsed.cc)].map((a) => [a.address.toLowerCase(), a.name]));
  const id = randomUUID();
  const prepared: PreparedSend = {
    projectId: submission.projectId,
    input: { to: submission.recipients.map((email) => ({ email, ...(names.get(email) ? { name: names.get(email)! } : {}) })) },
    template: undefined,
    content: {
      subject: literal(parsed.subject ?? ''),
      html: literal(typeof parsed.html === 'string' ? parsed.html : (parsed.textAsHtml ?? '')),
      from: { email: from.address.toLowerCase(), name: from.name || null },
      replyTo: firstAddress(parsed.replyTo)?.address ?? null,
      contentType: 'TRANSACTIONAL',
    },
    changes: NO_DATA_CHANGES,
    attachments: { items: [], bytes: 0 },
    submissionId: id,
  };
  const clientMessageId = parsed.messageId ? parsed.messageId.trim().slice(0, 998) : null;
  return { projectId: submission.projectId, id, clientMessageId, raw: submission.raw, prepared };
}

/**
 * Writes submissions in one transaction, through the same code as /v1/send
 * (src/send/send.service.ts): verified sender, contact upsert, suppression, billing limits,
 * records and events, together with each client's MIME, which delivery sends as it is with our
 * DKIM signature (src/delivery/submitted-mime.ts). A repeated Message-ID writes nothing and answers
 * with the first submission's records. A submission whose sender domain is not verified gets its
 * AppError in its place and leaves nothing; any other refusal throws (the writer then writes each
 * submission alone, so only its own client sees it).
 */
export async function writeSubmissions(deps: Deps, tx: Queryable, submissions: ParsedSubmission[]): Promise<Array<WrittenSubmission | AppError>> {
  const results: Array<WrittenSubmission | AppError | undefined> = submissions.map(() => undefined);
  const fresh: number[] = [];
  for (const [projectId, indexes] of byProject(submissions)) {
    const saved = await insertSubmissions(
      tx,
      projectId,
      indexes.map((i) => submissions[i]!),
      deps.config.idempotencyTtlHours,
    );
    saved.forEach((save, j) => {
      if (save.repeated) results[indexes[j]!] = { emailIds: save.emailIds, repeated: true, queued: 0 };
      else fresh.push(indexes[j]!);
    });
  }
  const sends = await writeSends(
    deps,
    tx,
    fresh.map((i) => submissions[i]!.prepared),
  );
  const refused = new Map<string, string[]>();
  const links = new Map<string, Array<{ submissionId: string; emailIds: string[] }>>();
  sends.forEach((send, j) => {
    const submission = submissions[fresh[j]!]!;
    if (send instanceof AppError) {
      results[fresh[j]!] = send;
      refused.set(submission.projectId, [...(refused.get(submission.projectId) ?? []), submission.id]);
      return;
    }
    const emailIds = send.emails.map((email) => email.email);
    results[fresh[j]!] = { emailIds, repeated: false, queued: send.queued };
    links.set(submission.projectId, [...(links.get(submission.projectId) ?? []), { submissionId: submission.id, emailIds }]);
  });
  for (const [projectId, ids] of refused) await deleteSubmissions(tx, projectId, ids);
  for (const [projectId, projectLinks] of links) await linkSubmissionRecords(tx, projectId, projectLinks);
  return results as Array<WrittenSubmission | AppError>;
}

/** The positions of `submissions` per project: Citus runs each project's statements on its node. */
function byProject(submissions: ParsedSubmission[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  submissions.forEach((s, i) => groups.set(s.projectId, [...(groups.get(s.projectId) ?? []), i]));
  return groups;
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
