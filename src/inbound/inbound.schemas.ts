import { z } from 'zod';
import { attachmentSchema } from '../emails/emails.schemas.ts';
import type { InboundRow, InboundSummaryRow } from './inbound.queries.ts';

export const inboundIdParams = z.object({ id: z.uuid() });

export const inboundListQuery = z.object({
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.string().max(2048).optional(),
  contactId: z.uuid().optional().describe("Only the messages from this contact's address"),
  emailId: z.uuid().optional().describe('Only the replies to this email record'),
});

/** docs/inbound.md: a received message as GET /inbound lists it. */
export const inboundSummarySchema = z.object({
  id: z.uuid(),
  contact: z.object({ id: z.uuid(), email: z.string() }).nullable().describe("The sender's contact (null once it is deleted)"),
  from: z.object({ email: z.string(), name: z.string().nullable() }),
  mailFrom: z.string().describe('The envelope sender (MAIL FROM); empty for a null sender'),
  to: z.array(z.string()).describe('The envelope recipients at this project’s domains: the addresses that received it'),
  toHeader: z.array(z.string()).describe('The addresses of the To header as written'),
  cc: z.array(z.string()),
  subject: z.string().nullable(),
  messageId: z.string().describe('The Message-ID header (one is made up when the message had none)'),
  inReplyTo: z.string().nullable(),
  emailId: z.uuid().nullable().describe('The email record this message answers, found by In-Reply-To or References'),
  attachments: z.array(attachmentSchema),
  size: z.number().int().describe('Size of the raw message in bytes'),
  receivedAt: z.string(),
});
export type InboundSummary = z.infer<typeof inboundSummarySchema>;

/** docs/inbound.md: GET /inbound/{id}, the message parsed. */
export const inboundMessageSchema = inboundSummarySchema.extend({
  headers: z.array(z.object({ name: z.string(), value: z.string() })).describe('Every header line, in order, unfolded'),
  text: z.string().nullable(),
  html: z.string().nullable(),
});
export type InboundMessage = z.infer<typeof inboundMessageSchema>;

export const inboundPage = z.object({ data: z.array(inboundSummarySchema), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

export function toInboundSummary(row: InboundSummaryRow): InboundSummary {
  return {
    id: row.id,
    contact: row.contact_id && row.contact_email ? { id: row.contact_id, email: row.contact_email } : null,
    from: { email: row.from_address, name: row.from_name },
    mailFrom: row.mail_from,
    to: row.recipients,
    toHeader: row.to_header,
    cc: row.cc_header,
    subject: row.subject,
    messageId: row.message_id,
    inReplyTo: row.in_reply_to,
    emailId: row.email_id,
    attachments: row.attachments,
    size: row.size,
    receivedAt: iso(row.created_at),
  };
}

export function toInboundMessage(row: InboundRow): InboundMessage {
  return { ...toInboundSummary(row), headers: row.headers, text: row.text_body, html: row.html };
}
