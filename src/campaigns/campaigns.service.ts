import type { Queryable } from '../db/index.ts';
import { getDeliverability } from '../deliverability/deliverability.service.ts';
import type { Deps } from '../deps.ts';
import { assertSenderAllowed } from '../domains/domains.service.ts';
import { WARMUP_WAIT } from '../domains/warmup.ts';
import { contentOf } from '../emails/email-content.ts';
import { AppError, badRequest, type FieldError, notFound } from '../errors.ts';
import { checkTemplateSyntax } from '../rendering/render.ts';
import type { ContentCheck } from '../templates/checks.ts';
import { resolveContent } from '../templates/formats.ts';
import { checkSaved, previewContent } from '../templates/templates.preview.ts';
import type { TemplatePreview } from '../templates/templates.schemas.ts';
import { getTemplateForSend } from '../templates/templates.service.ts';
import { audienceForWrite, audienceOf, checkAudienceCondition } from './audience.ts';
import { CampaignCounter } from './campaign-counts.ts';
import { countAudience } from './campaign-sending.queries.ts';
import * as queries from './campaigns.queries.ts';
import {
  type Campaign,
  type CampaignFields,
  type CampaignInput,
  type CampaignPage,
  type CampaignStats,
  DEFAULT_PAGE_SIZE,
  type ListCampaignsInput,
  MAX_NAME,
  MAX_PAGE_SIZE,
  toCampaign,
} from './campaigns.schemas.ts';

const required = (field: string): FieldError => ({ field, code: 'invalid_type', message: 'Required', received: 'undefined' });

/**
 * The column values of a create or PUT body, with every rule of the API reference's create body in order:
 * required content (422; a `templateId` may supply subject, body and sender), the audience's
 * companion field (400), the condition tree (422 naming the path), Liquid syntax (400), the
 * sender's domain (403), then the audience is counted: an unknown segment is a 404, a condition
 * naming an unknown or circular segment a 422.
 */
async function valuesOf(deps: Deps, projectId: string, input: CampaignInput): Promise<queries.CampaignValues> {
  const template = input.templateId ? await getTemplateForSend(deps.db, projectId, input.templateId) : undefined;
  const overrides = { subject: input.subject, html: input.body ?? input.source, fromEmail: input.from, fromName: input.fromName, replyTo: input.replyTo, contentType: input.type };
  const given = contentOf(template, overrides, { defaultType: 'MARKETING' });
  const { subject, html: body } = given;
  const from = given.from?.email;
  const missing = [subject === undefined && 'subject', body === undefined && 'body', from === undefined && 'from'].filter((f): f is string => !!f);
  if (missing.length) throw new AppError('VALIDATION_ERROR', { errors: missing.map(required) });

  if (input.audienceType === 'SEGMENT' && !input.segmentId) throw badRequest('segmentId is required when audienceType is SEGMENT.');
  if (input.audienceType === 'FILTERED' && !input.audienceCondition) throw badRequest('audienceCondition is required when audienceType is FILTERED.');
  if (input.audienceType === 'FILTERED') checkAudienceCondition(input.audienceCondition);
  checkTemplateSyntax(subject!, 'subject');
  // The content's format (docs/templates.md): the template's, unless the request writes its own.
  const fromTemplate = template && { format: template.format, source: template.format === 'html' ? null : template.source, editorState: template.editorState, body: template.body };
  const format = input.format ?? (input.body !== undefined && input.source === undefined ? 'html' : undefined);
  const content = await resolveContent({ format, source: input.source, editorState: input.editorState, body: input.body }, fromTemplate);
  await assertSenderAllowed(deps.db, projectId, from!);

  const values: queries.CampaignValues = {
    name: input.name,
    description: input.description ?? null,
    subject: subject!,
    ...content,
    fromEmail: from!,
    fromName: given.from!.name,
    replyTo: given.replyTo,
    type: given.contentType,
    templateId: template?.id ?? null,
    audienceType: input.audienceType,
    // Only the companion of the chosen audience type is kept.
    audienceCondition: input.audienceType === 'FILTERED' ? input.audienceCondition! : null,
    segmentId: input.audienceType === 'SEGMENT' ? input.segmentId! : null,
    totalRecipients: 0,
  };
  values.totalRecipients = await audienceSize(deps.db, projectId, values);
  return values;
}

/** How many contacts the audience holds now (a DRAFT's `totalRecipients`). */
async function audienceSize(db: Queryable, projectId: string, values: queries.CampaignValues): Promise<number> {
  const spec = { type: values.type, audience_type: values.audienceType, segment_id: values.segmentId, audience_condition: values.audienceCondition };
  return countAudience(db, await audienceForWrite(db, projectId, spec));
}

/** A saved campaign with the checks of its content (docs/campaigns.md, "Checks before sending"). */
export type SavedCampaign = { data: Campaign; checks: ContentCheck[] };

const checksOf = (values: queries.CampaignValues) => checkSaved({ subject: values.subject, body: values.body, source: values.source, type: values.type });

/** POST /campaigns: a DRAFT. */
export async function createCampaign(deps: Deps, projectId: string, input: CampaignInput): Promise<SavedCampaign> {
  const values = await valuesOf(deps, projectId, input);
  return { data: toCampaign(await queries.insertCampaign(deps.db, projectId, values)), checks: checksOf(values) };
}

/** The campaign row without its counters; 404 when the project has no such campaign. */
export async function findCampaignOr404(db: Queryable, projectId: string, id: string): Promise<CampaignFields> {
  const row = await queries.findCampaign(db, projectId, id);
  if (!row) throw notFound('Campaign');
  return row;
}

// One counter per server's configuration (tests start several servers in one process).
const counters = new WeakMap<Deps['config'], CampaignCounter>();

/** Who counts the records of this server's campaigns (campaign-counts.ts). */
function counterOf(deps: Deps): CampaignCounter {
  let counter = counters.get(deps.config);
  if (!counter) counters.set(deps.config, (counter = new CampaignCounter(deps.config.campaignCountsExactBelow)));
  return counter;
}

export async function getCampaign(deps: Deps, projectId: string, id: string): Promise<Campaign> {
  return toCampaign(await counterOf(deps).one(deps.db, projectId, await findCampaignOr404(deps.db, projectId, id)));
}

export const stateError = (row: Pick<CampaignFields, 'status'>, action: string) =>
  new AppError('CAMPAIGN_STATE_INVALID', { message: `A ${row.status} campaign cannot be ${action}.`, details: { status: row.status } });

/** PUT /campaigns/{id}: replaces the content, only while DRAFT or SCHEDULED (docs/decisions/campaigns.md). */
export async function replaceCampaign(deps: Deps, projectId: string, id: string, input: CampaignInput): Promise<SavedCampaign> {
  const current = await findCampaignOr404(deps.db, projectId, id);
  if (current.status !== 'DRAFT' && current.status !== 'SCHEDULED') throw stateError(current, 'edited (only DRAFT and SCHEDULED campaigns can)');
  const values = await valuesOf(deps, projectId, input);
  const row = await queries.replaceCampaign(deps.db, projectId, id, values);
  if (row) return { data: toCampaign(row), checks: checksOf(values) };
  // It moved on (or went) between the check and the write.
  throw stateError(await findCampaignOr404(deps.db, projectId, id), 'edited (only DRAFT and SCHEDULED campaigns can)');
}

/**
 * POST /campaigns/{id}/preview: the saved campaign as the template preview renders it, with a
 * contact's data or none, and its checks before a test or a send (docs/campaigns.md). The stored
 * body is what delivery sends (MJML was rendered on save, Liquid left in it), so it is previewed
 * as it is, without rendering the MJML again.
 */
export async function previewCampaign(deps: Deps, projectId: string, id: string, contactId?: string | null): Promise<TemplatePreview> {
  const row = await findCampaignOr404(deps.db, projectId, id);
  return previewContent(deps, projectId, { subject: row.subject, format: 'html', body: row.body, type: row.type, contactId });
}

/** POST /campaigns/{id}/duplicate: a DRAFT copy named "<name> (copy)", its audience counted now. */
export async function duplicateCampaign(deps: Deps, projectId: string, id: string): Promise<Campaign> {
  const copy = await queries.duplicateCampaign(deps.db, projectId, id, ' (copy)', MAX_NAME);
  if (!copy) throw notFound('Campaign');
  // A copy of a SENT campaign whose segment is gone since is still a valid DRAFT, of no one yet.
  copy.total_recipients = await audienceOf(deps.db, projectId, copy).then(
    (audience) => countAudience(deps.db, audience),
    (error) => {
      if (error instanceof AppError) return 0;
      throw error;
    },
  );
  await queries.setTotalRecipients(deps.db, projectId, copy.id, copy.total_recipients);
  return toCampaign(copy);
}

/** DELETE /campaigns/{id} (docs/decisions/campaigns.md): SENDING → 409; a SCHEDULED one is cancelled by going. */
export async function deleteCampaign(deps: Deps, projectId: string, id: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const row = await queries.lockCampaign(tx, projectId, id);
    if (!row) throw notFound('Campaign');
    if (row.status === 'SENDING') throw new AppError('CAMPAIGN_SENDING', { message: 'The campaign is sending; cancel it before deleting it.' });
    // A SCHEDULED campaign's start job finds no campaign and does nothing.
    await queries.deleteCampaign(tx, projectId, id);
  });
}

/** GET /campaigns (the API reference (Conventions): offset pagination; pageSize clamped to 100). */
export async function listCampaigns(deps: Deps, projectId: string, input: ListCampaignsInput): Promise<CampaignPage> {
  const page = input.page ?? 1;
  const pageSize = Math.min(input.pageSize ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const sort = input.sort === 'name' || input.sort === 'updatedAt' ? input.sort : 'createdAt';
  const dir = input.dir === 'asc' ? 'asc' : 'desc';
  const filters = { status: input.status, search: input.search?.trim() || undefined };
  const [rows, total] = await Promise.all([
    queries.listCampaigns(deps.db, projectId, { ...filters, sort, dir, limit: pageSize, offset: (page - 1) * pageSize }),
    queries.countCampaigns(deps.db, projectId, filters),
  ]);
  const counted = await counterOf(deps).of(deps.db, projectId, rows);
  return { data: counted.map(toCampaign), page, pageSize, total, totalPages: Math.ceil(total / pageSize) };
}

const percent = (part: number, whole: number) => (whole > 0 ? Math.round((part / whole) * 10000) / 100 : 0);

/** GET /campaigns/{id}/stats: the counters, every outcome, and the usual rates (percent). */
export async function campaignStats(deps: Deps, projectId: string, id: string): Promise<CampaignStats> {
  const row = await counterOf(deps).one(deps.db, projectId, await findCampaignOr404(deps.db, projectId, id));
  const waiting = row.queued_count > 0;
  const [warmup, rates] = await Promise.all([
    waiting ? queries.findWarmupWaits(deps.db, projectId, id, WARMUP_WAIT) : { count: 0, until: null },
    waiting ? getDeliverability(deps, projectId) : undefined,
  ]);
  return {
    totalRecipients: row.total_recipients,
    queuedCount: row.queued_count,
    sentCount: row.sent_count,
    deliveredCount: row.delivered_count,
    openedCount: row.opened_count,
    clickedCount: row.clicked_count,
    bouncedCount: row.bounced_count,
    complainedCount: row.complained_count,
    failedCount: row.failed_count,
    suppressedCount: row.suppressed_count,
    deliveryRate: percent(row.delivered_count, row.sent_count),
    bounceRate: percent(row.bounced_count, row.sent_count),
    openRate: percent(row.opened_count, row.delivered_count),
    clickRate: percent(row.clicked_count, row.delivered_count),
    warmupWaiting: { count: warmup.count, until: warmup.count > 0 && warmup.until ? new Date(warmup.until).toISOString() : null },
    // Campaign mail is marketing: the providers that slow the project's marketing stream now.
    throttledProviders: (rates?.providers ?? [])
      .filter((rate) => rate.stream === 'marketing' && rate.throttled)
      .map(({ provider, ratePerSecond, maxPerSecond }) => ({ provider, ratePerSecond, maxPerSecond })),
  };
}
