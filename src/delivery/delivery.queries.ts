import type { Queryable } from '../db/index.ts';
import { type ClaimRef, refsJson } from '../emails/email-status.queries.ts';
import type { EmailRow } from '../emails/emails.queries.ts';
import {
  type ClaimQueue,
  claimDue as claimDueOf,
  dueProjects as dueProjectsOf,
  extendLeases,
  nextDueAt as nextDueAtOf,
  releaseClaimsOf as releaseClaimsOfQueue,
} from '../jobs/claims.ts';
import type { TrackingMode, TrackingSettings } from '../links/tracking.ts';

/** The records the delivery worker claims (src/jobs/claims.ts): QUEUED and due, or SENDING past their lease. */
export const DELIVERY_QUEUE: ClaimQueue = {
  table: 'emails',
  due: 'next_attempt_at',
  pending: "status IN ('QUEUED', 'SENDING')",
  claimed: "status = 'SENDING'",
};

/**
 * Claims up to `limit` due records, oldest first, across projects or in the one project `projectId`
 * names, for the worker instance `claimedBy` (src/jobs/claims.ts): QUEUED ones whose time has come,
 * and SENDING ones whose lease expired or whose worker died (src/jobs/instances.ts). Each becomes
 * SENDING with a lease of `leaseSeconds` and attempts + 1; `attempts` is the claim's fencing token,
 * checked by every later write; `transactionalOnly` leaves marketing records alone. A record still marked handed off was in an SMTP transaction whose
 * answer never came: it is sent again with the same Message-ID (docs/decisions/sending.md), and `resends` counts it.
 */
export function claimDue(db: Queryable, limit: number, leaseSeconds: number, claimedBy: number, projectId?: string, transactionalOnly = false): Promise<EmailRow[]> {
  return claimDueOf<EmailRow>(db, DELIVERY_QUEUE, {
    limit,
    leaseSeconds,
    claimedBy,
    projectId,
    set: () => "status = 'SENDING', attempts = x.attempts + 1, resends = x.resends + (x.handed_off_at IS NOT NULL)::int, handed_off_at = NULL",
    returning: 'x.*',
    // The transactional lane (docs/streams.md), on emails_due_transactional_idx.
    due: transactionalOnly
      ? ({ inProject, limit: max }) => `due AS (
          SELECT project_id, id FROM emails
          WHERE ${DELIVERY_QUEUE.pending} AND next_attempt_at <= now() AND stream = 'transactional' ${inProject('')}
          ORDER BY next_attempt_at
          LIMIT ${max}
          FOR UPDATE SKIP LOCKED
        )`
      : undefined,
  });
}

/** The projects with due records, the project of the oldest first (src/jobs/project-rotation.queries.ts). */
export const dueProjects = (db: Queryable, scan: number) => dueProjectsOf(db, DELIVERY_QUEUE, scan);

/** dueProjects of transactional records only, for the transactional lane (docs/streams.md). */
export const dueTransactionalProjects = (db: Queryable, scan: number) => dueProjectsOf(db, DELIVERY_QUEUE, scan, { where: "stream = 'transactional'" });

/** The claims of dead worker instances fall due now, for the live workers to take over. */
export const releaseClaimsOf = (db: Queryable, instances: number[]) => releaseClaimsOfQueue(db, DELIVERY_QUEUE, instances);

/** Renews the lease of the claimed records not yet settled (a chunk waits for permits and the relay). */
export const renewLeases = (db: Queryable, held: ClaimRef[], leaseSeconds: number) => extendLeases(db, DELIVERY_QUEUE, ATTEMPTS, held, leaseSeconds);

/** A record's claim is fenced by its attempt number. */
const ATTEMPTS = { column: 'attempts', type: 'int' };

export type AttachmentRow = {
  email_id: string;
  filename: string;
  content_type: string;
  content_id: string | null;
  disposition: 'attachment' | 'inline';
  content: Uint8Array;
};

/** The attachments of claimed records, in request order. */
export async function loadAttachments(db: Queryable, refs: ClaimRef[]): Promise<AttachmentRow[]> {
  if (refs.length === 0) return [];
  return db.query<AttachmentRow>(
    `SELECT a.email_id, a.filename, a.content_type, a.content_id, a.disposition, a.content
     FROM email_attachments a
     JOIN jsonb_to_recordset($1::jsonb) AS c(project_id uuid, id uuid, attempts int) ON a.project_id = c.project_id AND a.email_id = c.id
     ORDER BY a.email_id, a.position`,
    [refsJson(refs)],
  );
}

/** When the next record falls due (a retry or an expired lease), for the wake-up job. */
export const nextDueAt = (db: Queryable) => nextDueAtOf(db, DELIVERY_QUEUE);

/** The tracking settings of these projects (the delivery worker reads them per chunk). */
export async function findTrackingSettings(db: Queryable, projectIds: string[]): Promise<Map<string, TrackingSettings>> {
  if (projectIds.length === 0) return new Map();
  const rows = await db.query<{ id: string; tracking_opens: TrackingMode; tracking_clicks: TrackingMode }>(
    'SELECT id, tracking_opens, tracking_clicks FROM projects WHERE id = ANY($1::uuid[])',
    [projectIds],
  );
  return new Map(rows.map((row) => [row.id, { opens: row.tracking_opens, clicks: row.tracking_clicks }]));
}
