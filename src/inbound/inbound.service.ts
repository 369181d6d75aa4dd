import { randomUUID } from 'node:crypto';
import type { AddressObject, ParsedMail } from 'mailparser';
import { upsertContactByEmail } from '../contacts/contacts.queries.ts';
import type { Deps } from '../deps.ts';
import { findEmailsByMessageIds } from '../emails/emails.queries.ts';
import { notFound } from '../errors.ts';
import { wakeDispatch } from '../events/events.jobs.ts';
import { recordEvents } from '../events/events.service.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, type Page, pageOf } from '../pagination.ts';
import { claimReceipts, countInbound, findInbound, findInboundRaw, type InboundAttachment, type InboundFilter, insertInbound, listInbound } from './inbound.queries.ts';
import { type InboundMessage, type InboundSummary, toInboundMessage, toInboundSummary } from './inbound.schemas.ts';

export const INBOUND_EVENT = 'email.received';
/** The event carries the text's first 10 KB (docs/inbound.md); the whole message stays at GET /inbound/{id}. */
const EVENT_TEXT_BYTES = 10 * 1024;

export type Received = { projectId: string; recipients: string[]; mailFrom: string; raw: Buffer; parsed: ParsedMail };

/**
 * A message the inbound listener accepted for one project's addresses (docs/inbound.md): stored
 * whole and parsed, the sender's contact found or created (not subscribed by this), and an
 * `email.received` event recorded on it, in one transaction. A (Message-ID, recipient) already
 * received is not stored again: returns undefined when none of the recipients is new.
 */
export async function receiveInbound(deps: Deps, message: Received): Promise<string | undefined> {
  const { projectId, parsed, raw } = message;
  const messageId = parsed.messageId?.trim().slice(0, 998) || `<${randomUUID()}@${deps.config.smtp.hostname}>`;
  const sender = addresses(parsed.from)[0] ?? (message.mailFrom ? { address: message.mailFrom, name: '' } : undefined);
  const fromAddress = sender?.address.trim().toLowerCase() ?? '';
  const inReplyTo = firstMessageId(parsed.inReplyTo);
  const answered = await repliedEmail(deps, projectId, parsed, fromAddress);
  const attachments: InboundAttachment[] = parsed.attachments.map((a) => ({
    filename: a.filename ?? null,
    contentType: a.contentType,
    size: a.size,
    contentId: a.contentId ?? null,
  }));
  const id = randomUUID();
  const stored = await deps.db.transaction(async (tx) => {
    const recipients = await claimReceipts(tx, projectId, messageId, message.recipients, id);
    if (recipients.length === 0) return undefined;
    const contact = fromAddress.includes('@')
      ? await upsertContactByEmail(tx, projectId, { email: fromAddress, subscribed: null, subscribedWhenNew: false, data: { set: {}, unset: [] } })
      : undefined;
    await insertInbound(tx, projectId, {
      id,
      contact_id: contact?.id ?? null,
      message_id: messageId,
      mail_from: message.mailFrom,
      from_address: fromAddress,
      from_name: sender?.name || null,
      recipients,
      to_header: addresses(parsed.to).map((a) => a.address),
      cc_header: addresses(parsed.cc).map((a) => a.address),
      subject: parsed.subject ?? null,
      text_body: parsed.text ?? null,
      html: typeof parsed.html === 'string' ? parsed.html : null,
      headers: parsed.headerLines.map((line) => ({ name: line.key, value: headerValue(line.line) })),
      attachments,
      in_reply_to: inReplyTo ?? null,
      email_id: answered?.id ?? null,
      size: raw.length,
      raw,
    });
    if (contact) {
      const data = {
        inboundId: id,
        from: fromAddress,
        to: recipients,
        subject: parsed.subject ?? null,
        text: firstBytes(parsed.text ?? '', EVENT_TEXT_BYTES),
        messageId,
        ...(inReplyTo ? { inReplyTo } : {}),
        // As on every email.* event: the record and what it was sent for (docs/decisions/webhook-endpoints.md).
        ...(answered ? { emailId: answered.id } : {}),
        ...(answered?.campaign_id ? { campaignId: answered.campaign_id } : {}),
        ...(answered?.workflow_id ? { workflowId: answered.workflow_id } : {}),
        ...(answered?.template_id ? { templateId: answered.template_id } : {}),
        attachments: attachments.map(({ filename, contentType, size }) => ({ filename, contentType, size })),
      };
      await recordEvents(tx, projectId, [{ contactId: contact.id, name: INBOUND_EVENT, emailId: answered?.id ?? null, data }]);
    }
    return { id, announced: contact !== undefined };
  });
  if (stored?.announced) wakeDispatch(deps);
  return stored?.id;
}

/**
 * Our email record this message answers: the one whose Message-ID is its In-Reply-To, else the
 * latest of its References that is ours (RFC 5322 §3.6.4). Of a submission's several records with
 * one Message-ID, the one sent to the replying address.
 */
async function repliedEmail(deps: Deps, projectId: string, parsed: ParsedMail, fromAddress: string): Promise<Answered | undefined> {
  const references = typeof parsed.references === 'string' ? [parsed.references] : (parsed.references ?? []);
  const candidates = [...new Set([firstMessageId(parsed.inReplyTo), ...references.slice().reverse()].filter((id): id is string => !!id))].slice(0, 50);
  if (candidates.length === 0) return undefined;
  const found = await findEmailsByMessageIds(deps.db, projectId, candidates);
  for (const candidate of candidates) {
    const records = found.filter((record) => record.message_id === candidate);
    if (records.length) return (records.find((record) => record.to_address.toLowerCase() === fromAddress) ?? records[0])!;
  }
  return undefined;
}

type Answered = Awaited<ReturnType<typeof findEmailsByMessageIds>>[number];

const firstMessageId = (value: string | undefined) => (value ? /<[^<>\s]+>/.exec(value)?.[0] : undefined);

function addresses(field: AddressObject | AddressObject[] | undefined): Array<{ address: string; name: string }> {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((object) =>
    object.value.flatMap((a) => (a.address ? [{ address: a.address, name: a.name }] : (a.group ?? []).flatMap((g) => (g.address ? [{ address: g.address, name: g.name }] : [])))),
  );
}

/** A header line's value, unfolded (RFC 5322 §2.2.3). */
const headerValue = (line: string) =>
  line
    .slice(line.indexOf(':') + 1)
    .replace(/\r?\n[ \t]+/g, ' ')
    .trim();

/** At most `bytes` of UTF-8, never cutting a character in two. */
function firstBytes(text: string, bytes: number): string {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= bytes) return text;
  return encoded
    .subarray(0, bytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}

/** GET /inbound: the project's received messages, newest first (cursor pagination). */
export async function listInboundMessages(deps: Deps, projectId: string, input: InboundFilter & { limit?: number; cursor?: string }): Promise<Page<InboundSummary>> {
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const sort = 'inbound';
  const before = input.cursor ? decodeCursor(secret, input.cursor, { sort, dir: 'desc', checkValue: isCursorTimestamp }) : undefined;
  const filter: InboundFilter = { contactId: input.contactId, emailId: input.emailId };
  const rows = await listInbound(deps.db, projectId, { ...filter, before, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at: { sort, dir: 'desc' },
    map: toInboundSummary,
    total: input.cursor ? undefined : () => countInbound(deps.db, projectId, filter),
  });
}

/** GET /inbound/{id}: the message parsed; another project's is a 404. */
export async function getInboundMessage(deps: Deps, projectId: string, id: string): Promise<InboundMessage> {
  const row = await findInbound(deps.db, projectId, id);
  if (!row) throw notFound('Inbound message');
  return toInboundMessage(row);
}

/** GET /inbound/{id}/raw: the message exactly as received. */
export async function getInboundRaw(deps: Deps, projectId: string, id: string): Promise<Buffer> {
  const raw = await findInboundRaw(deps.db, projectId, id);
  if (!raw) throw notFound('Inbound message');
  return raw;
}
