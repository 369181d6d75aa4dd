import { toContact } from '../contacts/contacts.schemas.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { badRequest } from '../errors.ts';
import { type AudienceSpec, checkAudienceCondition, narrowForSend, selectionForWrite, subscribedOnly } from './audience.ts';
import { listRecipients } from './campaign-recipients.queries.ts';
import { breakdownAudience, sampleAudience } from './campaign-sending.queries.ts';
import { type AudienceCheck, type AudienceCheckInput, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type RecipientPage, type RecipientsInput } from './campaigns.schemas.ts';
import { findCampaignOr404, stateError } from './campaigns.service.ts';

const SAMPLE_SIZE = 10;

/**
 * The audience check (docs/campaigns.md; docs/campaigns.md): who a send started now would mail, and why
 * the others would not. The selection and its narrowing are audience.ts's, the very predicate the
 * send fixes its records with, so `eligible` is the `totalRecipients` that send gets.
 */
async function checkSpec(db: Queryable, projectId: string, spec: AudienceSpec): Promise<AudienceCheck> {
  const selection = await selectionForWrite(db, projectId, spec);
  const [counts, sample] = await Promise.all([breakdownAudience(db, selection, subscribedOnly(spec)), sampleAudience(db, narrowForSend(selection, spec), SAMPLE_SIZE)]);
  const excluded = subscribedOnly(spec)
    ? { suppressed: counts.suppressed, snoozed: counts.snoozed, unsubscribed: counts.unsubscribed }
    : { suppressed: counts.suppressed, snoozed: 0, unsubscribed: 0 };
  return { total: counts.total, eligible: counts.eligible, excluded, sample: sample.map(toContact) };
}

/** POST /campaigns/audience: an unsaved campaign's audience, refused as campaign create refuses it. */
export async function checkAudience(deps: Deps, projectId: string, input: AudienceCheckInput): Promise<AudienceCheck> {
  if (input.audienceType === 'SEGMENT' && !input.segmentId) throw badRequest('segmentId is required when audienceType is SEGMENT.');
  if (input.audienceType === 'FILTERED' && !input.audienceCondition) throw badRequest('audienceCondition is required when audienceType is FILTERED.');
  if (input.audienceType === 'FILTERED') checkAudienceCondition(input.audienceCondition);
  return checkSpec(deps.db, projectId, {
    type: input.type ?? 'MARKETING',
    audience_type: input.audienceType,
    segment_id: input.audienceType === 'SEGMENT' ? input.segmentId! : null,
    audience_condition: input.audienceType === 'FILTERED' ? input.audienceCondition! : null,
  });
}

/** GET /campaigns/{id}/audience: a saved campaign's, while DRAFT or SCHEDULED (afterwards its audience is fixed). */
export async function checkCampaignAudience(deps: Deps, projectId: string, id: string): Promise<AudienceCheck> {
  const row = await findCampaignOr404(deps.db, projectId, id);
  if (row.status !== 'DRAFT' && row.status !== 'SCHEDULED') throw stateError(row, 'checked (its audience is fixed once sending begins)');
  return checkSpec(deps.db, projectId, row);
}

const isoOrNull = (value: Date | string | null) => (value === null ? null : (value instanceof Date ? value : new Date(value)).toISOString());

/** GET /campaigns/{id}/recipients: the campaign's email records, one per recipient, by address. */
export async function campaignRecipients(deps: Deps, projectId: string, id: string, input: RecipientsInput): Promise<RecipientPage> {
  await findCampaignOr404(deps.db, projectId, id);
  const page = input.page ?? 1;
  const pageSize = Math.min(input.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const { rows, total } = await listRecipients(deps.db, projectId, id, {
    status: input.status,
    search: input.search?.trim() || undefined,
    limit: pageSize,
    offset: (page - 1) * pageSize,
  });
  const data = rows.map((row) => ({
    emailId: row.id,
    contactId: row.contact_id,
    email: row.to_address,
    status: row.status,
    error: row.last_error,
    sentAt: isoOrNull(row.sent_at),
    deliveredAt: isoOrNull(row.delivered_at),
    openedAt: isoOrNull(row.opened_at),
    clickedAt: isoOrNull(row.clicked_at),
  }));
  return { data, page, pageSize, total, totalPages: Math.ceil(total / pageSize) };
}
