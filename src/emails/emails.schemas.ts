import { z } from 'zod';
import { EMAIL_STATUSES, type EmailRow, type ReplyRow, STREAMS } from './emails.queries.ts';

export const emailIdParams = z.object({ id: z.uuid() });

/** docs/decisions/sending.md: the email record of GET /emails/{id}. */
export const emailSchema = z.object({
  id: z.uuid(),
  contactId: z.uuid().nullable(),
  to: z.string(),
  from: z.string(),
  subject: z.string().nullable(),
  status: z.enum(EMAIL_STATUSES),
  sourceType: z.enum(['TRANSACTIONAL', 'CAMPAIGN', 'WORKFLOW']),
  stream: z
    .enum(STREAMS)
    .describe('docs/streams.md: marketing for campaign mail and MARKETING templates, transactional for the rest; transactional mail never waits behind marketing mail'),
  campaignId: z.uuid().nullable(),
  templateId: z.uuid().nullable(),
  workflowId: z.uuid().nullable(),
  messageId: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  openedAt: z.string().nullable(),
  clickedAt: z.string().nullable(),
  bouncedAt: z.string().nullable(),
  complainedAt: z.string().nullable(),
  opens: z.number().int(),
  clicks: z.number().int(),
  error: z.string().nullable(),
  resends: z.number().int().describe('Times the message was sent again, with the same Message-ID, after a hand-off whose answer never came (docs/decisions/sending.md)'),
});
export type Email = z.infer<typeof emailSchema>;

/** An attachment of a received message (docs/inbound.md). */
export const attachmentSchema = z.object({
  filename: z.string().nullable(),
  contentType: z.string(),
  size: z.number().int().describe('Decoded size in bytes'),
  contentId: z.string().nullable().describe('Set for inline parts (cid: references in the HTML)'),
});

/** docs/inbound.md: a received message answering an email record, as GET /emails/{id} lists it. */
export const replySchema = z.object({
  id: z.uuid(),
  from: z.object({ email: z.string(), name: z.string().nullable() }),
  subject: z.string().nullable(),
  receivedAt: z.string(),
  attachments: z.array(attachmentSchema),
});
export type Reply = z.infer<typeof replySchema>;

export function toReply(row: ReplyRow): Reply {
  const received = row.created_at instanceof Date ? row.created_at : new Date(row.created_at);
  return { id: row.id, from: { email: row.from_address, name: row.from_name }, subject: row.subject, receivedAt: received.toISOString(), attachments: row.attachments };
}

/** GET /emails/{id}: the record with the replies it received (docs/inbound.md). */
export const emailDetailSchema = emailSchema.extend({
  replies: z.array(replySchema).describe('Inbound messages answering this one (In-Reply-To or References), oldest first; the first 50, the rest at GET /inbound?emailId='),
});
export type EmailDetail = z.infer<typeof emailDetailSchema>;

const address = z.object({ email: z.string(), name: z.string().nullable() });

/** GET /emails/{id}/content: the message as rendered for its recipient (docs/decisions/sending.md, "The rendered message"). */
export const emailContentSchema = z.object({
  id: z.uuid(),
  from: address,
  to: address,
  replyTo: z.string().nullable(),
  subject: z.string().nullable(),
  messageId: z.string().nullable(),
  headers: z.record(z.string(), z.string()).describe('The custom headers given to /v1/send'),
  html: z.string().nullable(),
  text: z.string().nullable(),
  rendered: z
    .enum(['stored', 'now'])
    .describe(
      'stored: the content rendered for the recipient when the record was made, as sent except that the open pixel and click rewriting are added at sending and not stored. now: a campaign record, whose body is not stored, rendered now from the campaign and the contact as they are',
    ),
});
export type EmailContent = z.infer<typeof emailContentSchema>;

export const contactEmailsQuery = z.object({
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.string().max(2048).optional(),
});
export const emailPage = z.object({ data: z.array(emailSchema), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });

const iso = (value: Date | string | null) => (value === null ? null : (value instanceof Date ? value : new Date(value)).toISOString());

export function toEmailContent(row: EmailRow, rendered: EmailContent['rendered']): EmailContent {
  return {
    id: row.id,
    from: { email: row.from_address, name: row.from_name },
    to: { email: row.to_address, name: row.to_name },
    replyTo: row.reply_to,
    subject: row.subject,
    messageId: row.message_id,
    headers: row.headers,
    html: row.html,
    text: row.text_body,
    rendered,
  };
}

export function toEmail(row: EmailRow): Email {
  return {
    id: row.id,
    contactId: row.contact_id,
    to: row.to_address,
    from: row.from_address,
    subject: row.subject,
    status: row.status,
    sourceType: row.source_type,
    stream: row.stream,
    campaignId: row.campaign_id,
    templateId: row.template_id,
    workflowId: row.workflow_id,
    messageId: row.message_id,
    createdAt: iso(row.created_at)!,
    sentAt: iso(row.sent_at),
    deliveredAt: iso(row.delivered_at),
    openedAt: iso(row.opened_at),
    clickedAt: iso(row.clicked_at),
    bouncedAt: iso(row.bounced_at),
    complainedAt: iso(row.complained_at),
    opens: row.opens,
    clicks: row.clicks,
    error: row.last_error,
    resends: row.resends,
  };
}
