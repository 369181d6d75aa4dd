import { assertBillingAllows } from '../billing/billing.guard.ts';
import { retryOnDeadlock } from '../db/errors.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { assertSenderAllowed, signingKeyFor } from '../domains/domains.service.ts';
import { storedContent } from '../emails/email-content.ts';
import { enqueueDelivery } from '../emails/email-queue.ts';
import { refreshEmailStatistics } from '../emails/email-record.queries.ts';
import { makeCampaignRecords } from '../emails/email-record.ts';
import { failUnsentOfCampaign } from '../emails/email-status.queries.ts';
import { sendTestCopy } from '../emails/test-copy.ts';
import { AppError, badRequest, notFound } from '../errors.ts';
import type { JobQueue } from '../jobs/queue.ts';
import { audienceOf } from './audience.ts';
import * as sending from './campaign-sending.queries.ts';
import { lockCampaign, setStatus } from './campaigns.queries.ts';
import type { Campaign, CampaignFields } from './campaigns.schemas.ts';
import { findCampaignOr404, getCampaign, stateError } from './campaigns.service.ts';

export const START_JOB = 'campaigns.start';
export const PROGRESS_JOB = 'campaigns.progress';
export type StartJobData = { projectId: string; campaignId: string };

/** How often a SENDING campaign is checked for SENT (the contract promises no figure; seconds). */
export const PROGRESS_INTERVAL_SECONDS = 2;

export const CANCELLED_ERROR = 'The campaign was cancelled before this message was handed to the transport; it was not sent.';

/** Queues the next progress check; at most one is ever queued (the queue's `short` policy). */
export async function kickProgress(queue: JobQueue, tx?: Queryable): Promise<void> {
  const startAfter = new Date(Date.now() + PROGRESS_INTERVAL_SECONDS * 1000);
  await queue.send(PROGRESS_JOB, {}, { singletonKey: 'tick', startAfter, ...(tx ? { tx } : {}) });
}

/** `scheduledFor` as the API reference takes it: anything the date parser accepts; else 400. */
function parseScheduledFor(value: unknown): Date | null {
  if (value === undefined || value === null) return null;
  const parseable = (typeof value === 'string' && value.trim() !== '') || typeof value === 'number';
  const when = parseable ? new Date(value as string | number) : new Date(Number.NaN);
  if (Number.isNaN(when.getTime())) throw badRequest(`scheduledFor is not a date: ${JSON.stringify(value)}.`);
  if (when.getTime() < Date.now()) throw badRequest('scheduledFor is in the past.', { details: { scheduledFor: when.toISOString() } });
  return when;
}

/**
 * POST /campaigns/{id}/send (docs/decisions/campaigns.md). From DRAFT or SCHEDULED only; the audience must hold
 * an eligible contact. With `scheduledFor` the campaign becomes SCHEDULED and a start job waits
 * for that time; without, it becomes SENDING (sent_at now) and the start job runs at once. The
 * audience is fixed by the start job, not here: a large audience is not inserted inside a request.
 */
export async function sendCampaign(deps: Deps, projectId: string, id: string, scheduledFor: unknown) {
  const when = parseScheduledFor(scheduledFor);
  const current = await findCampaignOr404(deps.db, projectId, id);
  if (current.status !== 'DRAFT' && current.status !== 'SCHEDULED') throw stateError(current, 'sent (only DRAFT and SCHEDULED campaigns can)');
  await assertSenderAllowed(deps.db, projectId, current.from_email);
  await deps.db.transaction(async (tx) => {
    const row = await lockCampaign(tx, projectId, id);
    if (!row) throw notFound('Campaign');
    if (row.status !== 'DRAFT' && row.status !== 'SCHEDULED') throw stateError(row, 'sent (only DRAFT and SCHEDULED campaigns can)');
    const total = await sending.countAudience(tx, await audienceOf(tx, projectId, row));
    if (total === 0) throw new AppError('CAMPAIGN_NO_RECIPIENTS');
    await assertBillingAllows(tx, projectId, 'CAMPAIGN', total);
    await setStatus(
      tx,
      projectId,
      id,
      when ? { status: 'SCHEDULED', scheduledFor: when, totalRecipients: total } : { status: 'SENDING', scheduledFor: null, totalRecipients: total },
    );
    const data: StartJobData = { projectId, campaignId: id };
    await deps.queue.send(START_JOB, data, when ? { tx, startAfter: when } : { tx });
  });
  const campaign = await getCampaign(deps, projectId, id);
  const message = when ? `Campaign scheduled for ${when.toISOString()}.` : 'Campaign is being sent.';
  return { campaign, message };
}

/**
 * The start job (and the sweep's retry of a lost one): SCHEDULED and due → SENDING, then the
 * audience's records, a batch of contacts per transaction (fixNextBatch) until the audience is
 * fixed, the campaign is no longer SENDING, or `stopping()` (the process is shutting down: the
 * sweep resumes it). Each batch locks the campaign row (SKIP LOCKED: a concurrent start holds it,
 * and that run goes on); a run that finds the audience fixed does nothing, and the unique index
 * guards the records even if it did not.
 */
export async function startCampaign(deps: Deps, projectId: string, campaignId: string, stopping: () => boolean = () => false): Promise<void> {
  while (!stopping() && (await deps.db.transaction((tx) => fixNextBatch(deps, tx, projectId, campaignId)))) {
    // Back to the event loop between batches: the embedded database answers through promises alone,
    // so without it no request, timer or delivery run would get in until the whole audience is fixed.
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** One transaction of startCampaign; true while batches remain. */
async function fixNextBatch(deps: Deps, tx: Queryable, projectId: string, campaignId: string): Promise<boolean> {
  const row = await lockCampaign(tx, projectId, campaignId, true);
  if (!row) return false;
  if (row.status === 'SCHEDULED') {
    // Re-scheduled later since this job was queued: the job for the new time starts it.
    if (!row.due) return false;
    await setStatus(tx, projectId, campaignId, { status: 'SENDING' });
    // Read again for the sent_at just stamped, which bounds the audience.
    const started = await lockCampaign(tx, projectId, campaignId);
    return started ? fixAudienceBatch(deps, tx, started) : false;
  }
  if (row.status !== 'SENDING' || row.audience_fixed_at !== null) return false;
  return fixAudienceBatch(deps, tx, row);
}

/** An audience at least this large is a bulk load of `emails`, after which its statistics are refreshed. */
const BULK_RECORDS = 1000;

/**
 * The records of the next CAMPAIGN_AUDIENCE_BATCH contacts of the audience in id order, past the
 * campaign's `audience_fixed_through`, which moves to the batch's last contact in the same
 * transaction (docs/decisions/campaigns.md, "Sending"); delivery is queued after each. Contacts
 * created after sending began are not in the audience. The batch that reaches the end marks the
 * audience fixed. True while batches remain.
 */
async function fixAudienceBatch(deps: Deps, tx: Queryable, row: CampaignFields): Promise<boolean> {
  const projectId = row.project_id;
  const audience = await audienceOf(tx, projectId, row).then(
    (selected) => sending.createdBy(selected, row.sent_at!),
    (error: unknown) => {
      if (error instanceof AppError) return error;
      throw error;
    },
  );
  if (audience instanceof AppError) {
    // Its segment went away (the segment guard should prevent it): it can never be sent.
    deps.log.warn({ campaignId: row.id, err: audience }, 'campaign audience no longer resolves; the campaign is cancelled');
    await setStatus(tx, projectId, row.id, { status: 'CANCELLED' });
    if (row.audience_fixed_through !== null) await failUnsentOfCampaign(tx, projectId, row.id, CANCELLED_ERROR);
    return false;
  }
  const key = await signingKeyFor(tx, projectId, row.from_email);
  // A sender gone unverified since: records are still made (delivery fails them, saying why).
  const messageDomain = key?.domainName ?? row.from_email.slice(row.from_email.lastIndexOf('@') + 1).toLowerCase();
  const batch = deps.config.campaignAudienceBatch;
  const range = { after: row.audience_fixed_through, through: await sending.audienceBatchEnd(tx, audience, row.audience_fixed_through, batch) };
  await makeCampaignRecords(tx, row, audience, range, messageDomain);
  if (range.through !== null) {
    await sending.markAudienceFixedThrough(tx, projectId, row.id, range.through);
    // The first batch's statistics plan delivery's statements while the rest is made.
    if (range.after === null && batch >= BULK_RECORDS) await refreshEmailStatistics(tx);
    await enqueueDelivery(deps.queue, tx);
    return true;
  }
  const total = await sending.markAudienceFixed(tx, projectId, row.id);
  if (total >= BULK_RECORDS) await refreshEmailStatistics(tx);
  if (total > 0) await enqueueDelivery(deps.queue, tx);
  await kickProgress(deps.queue, tx);
  return false;
}

/**
 * POST /campaigns/{id}/cancel (docs/decisions/campaigns.md): SCHEDULED or SENDING → CANCELLED; records not yet
 * handed to the transport become FAILED (docs/decisions/campaigns.md). Any other state → 400.
 */
export async function cancelCampaign(deps: Deps, projectId: string, id: string): Promise<Campaign> {
  // Failing the unsent records updates rows that delivery's claims, lease renewals and hand-offs
  // update too: the side the database ends in a deadlock is tried again, as a whole.
  await retryOnDeadlock(() =>
    deps.db.transaction(async (tx) => {
      const row = await lockCampaign(tx, projectId, id);
      if (!row) throw notFound('Campaign');
      if (row.status !== 'SCHEDULED' && row.status !== 'SENDING') throw stateError(row, 'cancelled (only SCHEDULED and SENDING campaigns can)');
      await setStatus(tx, projectId, id, { status: 'CANCELLED' });
      if (row.status === 'SENDING') await failUnsentOfCampaign(tx, projectId, id, CANCELLED_ERROR);
    }),
  );
  return getCampaign(deps, projectId, id);
}

/** The progress job: SENDING → SENT where every record has left the queue; true while any is still SENDING. */
export async function advanceCampaigns(deps: Deps): Promise<boolean> {
  const { stillSending } = await sending.completeSentCampaigns(deps.db);
  return stillSending > 0;
}

/** The sweep: starts whatever start job was lost (a queue entry gone, a worker that died mid-start). */
export async function startOverdue(deps: Deps, graceSeconds: number, stopping: () => boolean = () => false): Promise<number> {
  const overdue = await sending.overdueStarts(deps.db, graceSeconds);
  for (const campaign of overdue) await startCampaign(deps, campaign.project_id, campaign.id, stopping);
  return overdue.length;
}

/**
 * POST /campaigns/{id}/test (docs/decisions/campaigns.md): one copy, rendered now, `[Test]` in the subject, to any
 * address. Its record has no campaign id and no contact, so it moves no counter, emits no contact
 * event and leaves the campaign's state alone. A contact with that address lends its data to the
 * rendering. A suppressed address gets a SUPPRESSED record, as any send would.
 */
export async function sendTestEmail(deps: Deps, projectId: string, id: string, to: string): Promise<{ emailId: string; to: string }> {
  const row = await findCampaignOr404(deps.db, projectId, id);
  const address = to.toLowerCase();
  const emailId = await sendTestCopy(deps, projectId, {
    to: address,
    content: storedContent({ subject: row.subject, body: row.body, from: row.from_email, fromName: row.from_name, replyTo: row.reply_to, type: row.type }),
    source: { type: 'CAMPAIGN' },
  });
  return { emailId, to: address };
}
