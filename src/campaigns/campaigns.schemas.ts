import { z } from 'zod';
import { contactSchema } from '../contacts/contacts.schemas.ts';
import { PROVIDERS } from '../deliverability/providers.ts';
import { EMAIL_STATUSES } from '../emails/emails.queries.ts';
import { offsetPage, offsetPageFields, sortFields } from '../pagination.ts';
import { type ContentFormat, contentOut, formatFields, formatResponseFields } from '../templates/formats.ts';
import { contentCheck } from '../templates/templates.schemas.ts';

export const CAMPAIGN_TYPES = ['TRANSACTIONAL', 'MARKETING', 'HEADLESS'] as const;
export const CAMPAIGN_STATUSES = ['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'] as const;
export const AUDIENCE_TYPES = ['ALL', 'SEGMENT', 'FILTERED'] as const;
export type CampaignType = (typeof CAMPAIGN_TYPES)[number];
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type AudienceType = (typeof AUDIENCE_TYPES)[number];

/** A campaigns row, without its counters. */
export type CampaignFields = {
  project_id: string;
  id: string;
  name: string;
  description: string | null;
  subject: string;
  body: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  type: CampaignType;
  template_id: string | null;
  format: ContentFormat;
  source: string | null;
  editor_state: unknown;
  audience_type: AudienceType;
  audience_condition: Record<string, unknown> | null;
  segment_id: string | null;
  status: CampaignStatus;
  scheduled_for: Date | string | null;
  sent_at: Date | string | null;
  audience_fixed_at: Date | string | null;
  /** The last contact id whose records are made while the audience is being fixed (in batches, in id order). */
  audience_fixed_through: string | null;
  total_recipients: number;
  created_at: Date | string;
  updated_at: Date | string;
};

/** A campaigns row with its counters (campaign-counts.ts adds them to a row that has none). */
export type CampaignRow = CampaignFields & CampaignCounts;

/** Records per outcome (docs/decisions/campaigns.md: which statuses count where). */
export type CampaignCounts = {
  queued_count: number;
  sent_count: number;
  delivered_count: number;
  opened_count: number;
  clicked_count: number;
  bounced_count: number;
  complained_count: number;
  failed_count: number;
  suppressed_count: number;
};

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

/** the API reference (Campaign), from a campaigns row. Unset optional fields are null. */
export function toCampaign(row: CampaignRow): Campaign {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    subject: row.subject,
    body: row.body,
    from: row.from_email,
    fromName: row.from_name,
    replyTo: row.reply_to,
    type: row.type,
    ...contentOut({ format: row.format, source: row.source, editorState: row.editor_state, body: row.body }),
    status: row.status,
    audienceType: row.audience_type,
    audienceCondition: row.audience_condition,
    segmentId: row.segment_id,
    templateId: row.template_id,
    scheduledFor: isoOrNull(row.scheduled_for),
    totalRecipients: row.total_recipients,
    sentCount: row.sent_count,
    deliveredCount: row.delivered_count,
    openedCount: row.opened_count,
    clickedCount: row.clicked_count,
    bouncedCount: row.bounced_count,
    projectId: row.project_id,
    sentAt: isoOrNull(row.sent_at),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const campaignSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  subject: z.string(),
  body: z.string(),
  from: z.string(),
  fromName: z.string().nullable(),
  replyTo: z.string().nullable(),
  type: z.enum(CAMPAIGN_TYPES),
  ...formatResponseFields,
  status: z.enum(CAMPAIGN_STATUSES),
  audienceType: z.enum(AUDIENCE_TYPES),
  audienceCondition: z.record(z.string(), z.unknown()).nullable(),
  segmentId: z.uuid().nullable(),
  templateId: z.uuid().nullable(),
  scheduledFor: z.string().nullable(),
  totalRecipients: z.number().int(),
  sentCount: z.number().int(),
  deliveredCount: z.number().int(),
  openedCount: z.number().int(),
  clickedCount: z.number().int(),
  bouncedCount: z.number().int(),
  projectId: z.uuid(),
  sentAt: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Campaign = z.infer<typeof campaignSchema>;

// Field limits, the same as templates' (docs/decisions/templates.md).
export const MAX_NAME = 200;
const noLineBreaks = (value: string) => !/[\r\n]/.test(value);
const email = z.string().trim().max(254).pipe(z.email());

/**
 * POST /campaigns and PUT /campaigns/{id} (PUT replaces: it takes the create body). subject, body
 * and from are required unless `templateId` supplies them (checked by the service after the merge);
 * the companion fields of audienceType are checked by the service too (400, the API reference).
 */
export const campaignBody = z.object({
  name: z.string().trim().min(1).max(MAX_NAME),
  description: z.string().max(2000).nullish(),
  subject: z.string().min(1).max(2000).optional(),
  body: z.string().min(1).max(1_000_000).optional(),
  from: email.optional(),
  fromName: z.string().trim().max(200).refine(noLineBreaks, { message: 'Must not contain line breaks.' }).nullish(),
  replyTo: email.nullish(),
  type: z.enum(CAMPAIGN_TYPES).optional(),
  audienceType: z.enum(AUDIENCE_TYPES),
  segmentId: z.uuid().nullish(),
  audienceCondition: z.record(z.string(), z.unknown()).nullish(),
  templateId: z.uuid().nullish().describe('copy subject, body, sender and type from this template; explicit fields override'),
  ...formatFields,
});
export type CampaignInput = z.infer<typeof campaignBody>;

export const campaignIdParams = z.object({ id: z.uuid() });

/**
 * `scheduledFor`: anything `Date` parses (the API reference); the service answers 400 for anything else,
 * whatever its JSON type ("unparseable gives 400").
 */
export const sendCampaignBody = z.object({ scheduledFor: z.unknown().optional().describe('date-time; omit or null to send now') }).nullish();

export const testCampaignBody = z.object({ email });

export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../pagination.ts';

/** the API reference (Conventions), offset pagination; an unknown status is a 400 (querystring validation). */
export const listCampaignsQuery = z.object({
  ...offsetPageFields,
  ...sortFields,
  status: z.enum(CAMPAIGN_STATUSES).optional(),
  search: z.string().max(200).optional().describe('case-insensitive substring of name, subject or sender address'),
});
export type ListCampaignsInput = z.infer<typeof listCampaignsQuery>;

export const campaignPage = offsetPage(campaignSchema);
export type CampaignPage = z.infer<typeof campaignPage>;

export const campaignEnvelope = z.object({ success: z.literal(true), data: campaignSchema, message: z.string().optional() });

/** POST /campaigns and PUT /campaigns/{id}: the campaign and the checks of its content (docs/campaigns.md). */
export const savedCampaignEnvelope = campaignEnvelope.extend({
  checks: z
    .array(contentCheck)
    .describe('advice, not refusals, rendered with no contact: images without alt, links not http(s), HTML over 102 KB, no unsubscribe link (MARKETING), no text part'),
});

/** POST /campaigns/{id}/preview. */
export const campaignPreviewBody = z.object({ contactId: z.uuid().nullish().describe('whose data renders it; none: no contact variables') }).nullish();

export const campaignStats = z.object({
  totalRecipients: z.number().int(),
  queuedCount: z.number().int().describe('records still waiting for delivery (QUEUED or SENDING)'),
  sentCount: z.number().int(),
  deliveredCount: z.number().int(),
  openedCount: z.number().int(),
  clickedCount: z.number().int(),
  bouncedCount: z.number().int(),
  complainedCount: z.number().int(),
  failedCount: z.number().int(),
  suppressedCount: z.number().int(),
  deliveryRate: z.number().describe('percent of sent'),
  bounceRate: z.number().describe('percent of sent'),
  openRate: z.number().describe('percent of delivered'),
  clickRate: z.number().describe('percent of delivered'),
  warmupWaiting: z
    .object({
      count: z.number().int().describe("Records over their sending domain's warm-up cap for the day"),
      until: z.string().nullable().describe('When the last of them may leave: the start of the next warm-up day (UTC)'),
    })
    .describe('docs/streams.md, "Warm-up": records waiting, not counted as attempts, for the next day of their domain\'s schedule'),
  throttledProviders: z
    .array(z.object({ provider: z.enum(PROVIDERS), ratePerSecond: z.number(), maxPerSecond: z.number() }))
    .describe("While records are queued: receiving providers that deferred the project's marketing mail, so it reaches them more slowly (GET /deliverability)"),
});
export type CampaignStats = z.infer<typeof campaignStats>;

export const testSentResponse = z.object({ success: z.literal(true), message: z.string(), data: z.object({ emailId: z.uuid(), to: z.string() }) });

/** POST /campaigns/audience: the audience part of a campaign body (its companions checked as create checks them). */
export const audienceCheckBody = z.object({
  type: z.enum(CAMPAIGN_TYPES).optional().describe('MARKETING when omitted; TRANSACTIONAL campaigns exclude only the suppressed'),
  audienceType: z.enum(AUDIENCE_TYPES),
  segmentId: z.uuid().nullish(),
  audienceCondition: z.record(z.string(), z.unknown()).nullish(),
});
export type AudienceCheckInput = z.infer<typeof audienceCheckBody>;

export const audienceCheck = z.object({
  total: z.number().int().describe('contacts the audience selects'),
  eligible: z.number().int().describe('contacts a send started now would mail: its totalRecipients'),
  excluded: z
    .object({ unsubscribed: z.number().int(), suppressed: z.number().int(), snoozed: z.number().int() })
    .describe('why the others would not be mailed; each contact once, under the first of suppressed, snoozed, unsubscribed'),
  sample: z.array(contactSchema).describe('up to 10 eligible contacts'),
});
export type AudienceCheck = z.infer<typeof audienceCheck>;

export const recipientsQuery = z.object({
  ...offsetPageFields,
  status: z.enum(EMAIL_STATUSES).optional(),
  search: z.string().max(254).optional().describe('substring of the address'),
});
export type RecipientsInput = z.infer<typeof recipientsQuery>;

export const recipientSchema = z.object({
  emailId: z.uuid().describe('the email record: GET /emails/{emailId}'),
  contactId: z.uuid().nullable(),
  email: z.string(),
  status: z.enum(EMAIL_STATUSES),
  error: z.string().nullable(),
  sentAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  openedAt: z.string().nullable(),
  clickedAt: z.string().nullable(),
});
export const recipientPage = offsetPage(recipientSchema);
export type RecipientPage = z.infer<typeof recipientPage>;
