import { type Queryable, queryOne } from '../db/index.ts';

export type ContactJobType = 'bulk-subscribe' | 'bulk-unsubscribe' | 'bulk-delete' | 'import';
export type ContactJobStatus = 'queued' | 'running' | 'completed' | 'failed';
export type JobProblem = { id?: string; row?: number; message: string };

/** A contact_jobs row, shared by the bulk and import jobs. */
export type ContactJobRow = {
  id: string;
  type: ContactJobType;
  status: ContactJobStatus;
  contactIds: string[] | null;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  errors: JobProblem[];
  error: string | null;
  createdAt: Date;
  completedAt: Date | null;
};

/** docs/decisions/contacts-and-events.md: only the first 100 problems are kept. */
export const MAX_JOB_ERRORS = 100;

const JOB_COLUMNS = `id, type, status, contact_ids AS "contactIds", total, processed, succeeded, failed, errors, error,
  created_at AS "createdAt", completed_at AS "completedAt"`;

export async function insertJob(db: Queryable, projectId: string, type: ContactJobType, contactIds: string[] | null, total: number) {
  const row = await queryOne<{ id: string }>(db, `INSERT INTO contact_jobs (project_id, type, contact_ids, total) VALUES ($1, $2, $3::uuid[], $4) RETURNING id`, [
    projectId,
    type,
    contactIds,
    total,
  ]);
  return row!.id;
}

export function findJob(db: Queryable, projectId: string, jobId: string) {
  return queryOne<ContactJobRow>(db, `SELECT ${JOB_COLUMNS} FROM contact_jobs WHERE project_id = $1 AND id = $2`, [projectId, jobId]);
}

/**
 * Claims a queued (or, after a crash, running) job for this attempt; undefined when it has ended.
 * The time comes from the `clock` CTE: Citus refuses now() inside coalesce in a write.
 */
export function startJob(db: Queryable, projectId: string, jobId: string) {
  return queryOne<ContactJobRow>(
    db,
    `WITH clock AS MATERIALIZED (SELECT now() AS now)
     UPDATE contact_jobs SET status = 'running', started_at = coalesce(started_at, clock.now)
       FROM clock
      WHERE project_id = $1 AND id = $2 AND status IN ('queued', 'running')
      RETURNING ${JOB_COLUMNS}`,
    [projectId, jobId],
  );
}

/**
 * Adds one batch's outcome to a job's progress; the problems are appended up to the first 100.
 * Runs in the batch's transaction, so progress and the contacts it describes commit together.
 */
export async function addProgress(
  db: Queryable,
  projectId: string,
  jobId: string,
  progress: { processed: number; succeeded: number; failed: number; errors: JobProblem[]; total?: number },
) {
  await db.query(
    `UPDATE contact_jobs
        SET processed = processed + $3, succeeded = succeeded + $4, failed = failed + $5,
            total = coalesce($7, total),
            errors = CASE WHEN jsonb_array_length(errors) >= ${MAX_JOB_ERRORS} THEN errors
                          ELSE coalesce((SELECT jsonb_agg(e ORDER BY n) FROM jsonb_array_elements(errors || $6::jsonb) WITH ORDINALITY AS a(e, n)
                                          WHERE n <= ${MAX_JOB_ERRORS}), '[]'::jsonb) END
      WHERE project_id = $1 AND id = $2`,
    [projectId, jobId, progress.processed, progress.succeeded, progress.failed, JSON.stringify(progress.errors.slice(0, MAX_JOB_ERRORS)), progress.total ?? null],
  );
}

/** Ends a job: completed, or failed with the reason. An import's stored file goes with it. */
export async function finishJob(db: Queryable, projectId: string, jobId: string, outcome: { status: 'completed' } | { status: 'failed'; error: string; errors?: JobProblem[] }) {
  await db.query(
    `WITH file AS (DELETE FROM contact_import_files WHERE project_id = $1 AND job_id = $2)
     UPDATE contact_jobs
        SET status = $3, error = $4, completed_at = now(),
            errors = CASE WHEN $5::jsonb IS NULL THEN errors ELSE $5::jsonb END
      WHERE project_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
    [projectId, jobId, outcome.status, outcome.status === 'failed' ? outcome.error : null, outcome.status === 'failed' && outcome.errors ? JSON.stringify(outcome.errors) : null],
  );
}

export type ChangedContact = { id: string; changed: boolean; subscriptionChanged: boolean };

/**
 * Sets `subscribed` on the listed contacts of the project and clears any snooze (an explicit
 * subscribe or unsubscribe ends it). Returns every contact found, whether it changed, and whether
 * its `subscribed` flipped (those emit the subscription event). Ids of other projects never match.
 */
export function setSubscribed(db: Queryable, projectId: string, contactIds: string[], subscribed: boolean) {
  return db.query<ChangedContact>(
    `WITH target AS (
       SELECT id, subscribed AS was FROM contacts WHERE project_id = $1 AND id = ANY($2::uuid[]) FOR UPDATE
     ),
     updated AS (
       UPDATE contacts c SET subscribed = $3, snoozed_until = NULL, updated_at = now()
         FROM target t
        WHERE c.project_id = $1 AND c.id = t.id AND (c.subscribed <> $3 OR c.snoozed_until IS NOT NULL)
        RETURNING c.id
     )
     SELECT t.id, u.id IS NOT NULL AS changed, t.was <> $3 AS "subscriptionChanged"
       FROM target t LEFT JOIN updated u ON u.id = t.id`,
    [projectId, contactIds, subscribed],
  );
}

/**
 * Deletes the listed contacts of the project (their events go with them; their email records stay,
 * detached here as deleteContact does); returns the deleted ids.
 */
export async function deleteContacts(db: Queryable, projectId: string, contactIds: string[]) {
  const rows = await db.query<{ id: string }>(
    `WITH detached AS (UPDATE emails SET contact_id = NULL WHERE project_id = $1 AND contact_id = ANY($2::uuid[]))
     DELETE FROM contacts WHERE project_id = $1 AND id = ANY($2::uuid[]) RETURNING id`,
    [projectId, contactIds],
  );
  return rows.map((row) => row.id);
}

/** Which of the given emails are contacts of the project, in the given order (one query). */
export function lookupEmails(db: Queryable, projectId: string, emails: string[]) {
  return db.query<{ email: string; id: string | null }>(
    `SELECT i.email, c.id
       FROM unnest($2::text[]) WITH ORDINALITY AS i(email, ord)
       LEFT JOIN contacts c ON c.project_id = $1 AND c.email = lower(btrim(i.email))
      ORDER BY i.ord`,
    [projectId, emails],
  );
}
