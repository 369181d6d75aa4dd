import type { Deps } from '../deps.ts';
import { AppError, notFound } from '../errors.ts';
import { recordEvents, subscriptionEventName } from '../events/events.service.ts';
import {
  addProgress,
  type ContactJobRow,
  type ContactJobType,
  deleteContacts,
  findJob,
  finishJob,
  insertJob,
  lookupEmails,
  MAX_JOB_ERRORS,
  setSubscribed,
  startJob,
} from './contact-bulk.queries.ts';

export const BULK_JOB = 'contacts.bulk';
export type BulkJobData = { projectId: string; jobId: string };

/** the API reference (Limits): bulk by ID, 1000 contacts per call. */
export const MAX_BULK_IDS = 1000;

export type BulkOperation = 'subscribe' | 'unsubscribe' | 'delete';

type BulkDeps = Pick<Deps, 'db' | 'queue'>;

/** docs/decisions/contacts-and-events.md: 1–1000 ids, else 400 (not the 422 of a schema failure). */
export function assertListSize(field: string, size: number, max: number, noun: string) {
  if (size >= 1 && size <= max) return;
  throw new AppError('BAD_REQUEST', {
    message: `${field} must hold 1 to ${max} ${noun}; got ${size}.`,
    errors: [{ field, code: size < 1 ? 'too_small' : 'too_big', message: `Between 1 and ${max} ${noun} per call.` }],
    suggestion: size > max ? `Split the list into calls of at most ${max}.` : undefined,
  });
}

/**
 * Queues a bulk operation: the job-progress row and the pg-boss job commit together, so a job
 * id handed out always gets worked. Duplicate ids count once.
 */
export async function queueBulk(deps: BulkDeps, projectId: string, operation: BulkOperation, contactIds: string[]) {
  assertListSize('contactIds', contactIds.length, MAX_BULK_IDS, 'contact ids');
  const ids = [...new Set(contactIds.map((id) => id.toLowerCase()))];
  const jobId = await deps.db.transaction(async (tx) => {
    const id = await insertJob(tx, projectId, `bulk-${operation}`, ids, ids.length);
    await deps.queue.send<BulkJobData>(BULK_JOB, { projectId, jobId: id }, { tx });
    return id;
  });
  return { jobId };
}

/** the API reference (Limits): contact lookup, 500 emails per call. */
export const MAX_LOOKUP_EMAILS = 500;

/** POST /contacts/lookup: existence of each email, in request order, case-insensitive. */
export async function lookupContacts(deps: Pick<Deps, 'db'>, projectId: string, emails: string[]) {
  assertListSize('emails', emails.length, MAX_LOOKUP_EMAILS, 'emails');
  const rows = await lookupEmails(deps.db, projectId, emails);
  return { data: rows.map((row) => (row.id ? { email: row.email, exists: true, id: row.id } : { email: row.email, exists: false })) };
}

/** The job-status answer shared by bulk and import (docs/decisions/contacts-and-events.md). */
export function toJobStatus(row: ContactJobRow) {
  return {
    id: row.id,
    type: row.type,
    status: row.status,
    total: row.total,
    processed: row.processed,
    succeeded: row.succeeded,
    failed: row.failed,
    errors: row.errors,
    error: row.error,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt ? row.completedAt.toISOString() : null,
  };
}

export async function getJob(deps: Pick<Deps, 'db'>, projectId: string, jobId: string, types: readonly ContactJobType[], noun: string) {
  const row = await findJob(deps.db, projectId, jobId);
  if (!row || !types.includes(row.type)) throw notFound(noun);
  return toJobStatus(row);
}

export const BULK_TYPES: readonly ContactJobType[] = ['bulk-subscribe', 'bulk-unsubscribe', 'bulk-delete'];

/**
 * Works one bulk job set-based, in one transaction with its progress: a retry after a crash
 * either finds the job done (and skips it) or finds nothing of it applied.
 */
export async function runBulkJob(deps: BulkDeps, { projectId, jobId }: BulkJobData) {
  await deps.db.transaction(async (tx) => {
    const job = await startJob(tx, projectId, jobId);
    if (!job?.contactIds) return;
    let found: string[];
    if (job.type === 'bulk-delete') {
      found = await deleteContacts(tx, projectId, job.contactIds);
    } else {
      const subscribed = job.type === 'bulk-subscribe';
      const rows = await setSubscribed(tx, projectId, job.contactIds, subscribed);
      found = rows.map((row) => row.id);
      const flipped = rows.filter((row) => row.subscriptionChanged);
      await recordEvents(
        tx,
        projectId,
        flipped.map((row) => ({ contactId: row.id, name: subscriptionEventName(subscribed) })),
      );
    }
    const foundSet = new Set(found);
    const missing = job.contactIds.filter((id) => !foundSet.has(id));
    await addProgress(tx, projectId, jobId, {
      processed: job.contactIds.length,
      succeeded: found.length,
      failed: missing.length,
      errors: missing.slice(0, MAX_JOB_ERRORS).map((id) => ({ id, message: 'Contact not found' })),
    });
    await finishJob(tx, projectId, jobId, { status: 'completed' });
  });
}

/** Marks a job failed once its retries are spent, so pollers see an end. */
export async function failJob(deps: Pick<Deps, 'db'>, projectId: string, jobId: string, error: string) {
  await finishJob(deps.db, projectId, jobId, { status: 'failed', error });
}
