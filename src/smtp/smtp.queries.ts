import type { Queryable } from '../db/index.ts';

/** A submission to record: its id, the client's Message-ID (null without one) and its MIME. */
export type NewSubmission = { id: string; clientMessageId: string | null; raw: Buffer };

/**
 * Records a project's submissions in one statement, except those whose client Message-ID the
 * project submitted within `ttlHours`: for each of those nothing is written and the earlier
 * submission's record ids come back (`repeated`), in `submissions` order. An older row with that
 * Message-ID gives it up first, so it is sent again. On a race between two copies, the second waits
 * on the unique index for the first to commit, then finds it. No two of `submissions` may share a
 * Message-ID (src/smtp/submission-writer.ts keeps them in separate writes).
 */
export async function insertSubmissions(
  tx: Queryable,
  projectId: string,
  submissions: NewSubmission[],
  ttlHours: number,
): Promise<Array<{ repeated: false } | { repeated: true; emailIds: string[] }>> {
  const messageIds = submissions.flatMap((s) => (s.clientMessageId === null ? [] : [s.clientMessageId]));
  if (messageIds.length) {
    await tx.query(
      `UPDATE smtp_submissions SET client_message_id = NULL
       WHERE project_id = $1 AND client_message_id = ANY($2::text[]) AND created_at < now() - make_interval(hours => $3)`,
      [projectId, messageIds, ttlHours],
    );
  }
  const params: unknown[] = [projectId];
  const rows = submissions.map((s) => {
    params.push(s.id, s.clientMessageId, s.raw);
    return `($1, $${params.length - 2}::uuid, $${params.length - 1}::text, $${params.length}::bytea)`;
  });
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO smtp_submissions (project_id, id, client_message_id, raw) VALUES ${rows.join(', ')}
     ON CONFLICT (project_id, client_message_id) DO NOTHING RETURNING id`,
    params,
  );
  const recorded = new Set(inserted.map((row) => row.id));
  const repeats = submissions.flatMap((s) => (recorded.has(s.id) ? [] : [s.clientMessageId!]));
  const earlier = new Map<string, string[]>();
  if (repeats.length) {
    const found = await tx.query<{ client_message_id: string; email_ids: string[] }>(
      'SELECT client_message_id, email_ids FROM smtp_submissions WHERE project_id = $1 AND client_message_id = ANY($2::text[])',
      [projectId, repeats],
    );
    for (const row of found) earlier.set(row.client_message_id, row.email_ids);
  }
  return submissions.map((s) => (recorded.has(s.id) ? { repeated: false } : { repeated: true, emailIds: earlier.get(s.clientMessageId!) ?? [] }));
}

/** Forgets submissions whose send was refused in the same transaction (nothing of theirs is kept). */
export async function deleteSubmissions(tx: Queryable, projectId: string, ids: string[]): Promise<void> {
  if (ids.length) await tx.query('DELETE FROM smtp_submissions WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, ids]);
}

/**
 * Ties each submission to its records, two statements for all of them: delivery then sends its
 * MIME (src/delivery/delivery.service.ts), and a repeat of its Message-ID answers with its ids.
 */
export async function linkSubmissionRecords(tx: Queryable, projectId: string, links: Array<{ submissionId: string; emailIds: string[] }>): Promise<void> {
  if (links.length === 0) return;
  await tx.query(
    `UPDATE smtp_submissions s SET email_ids = v.email_ids
     FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, email_ids uuid[])
     WHERE s.project_id = $1 AND s.id = v.id`,
    [projectId, JSON.stringify(links.map((link) => ({ id: link.submissionId, email_ids: link.emailIds })))],
  );
  const records = links.flatMap((link) => link.emailIds.map((emailId) => [emailId, link.submissionId] as const));
  if (records.length === 0) return;
  await tx.query(
    `UPDATE emails e SET submission_id = v.submission_id
     FROM unnest($2::uuid[], $3::uuid[]) AS v(id, submission_id)
     WHERE e.project_id = $1 AND e.id = v.id`,
    [projectId, records.map(([emailId]) => emailId), records.map(([, submissionId]) => submissionId)],
  );
}

/** The project that verified `domain`: at most one (domains_verified_domain_key). */
export async function findVerifiedDomainProject(db: Queryable, domain: string): Promise<string | undefined> {
  const rows = await db.query<{ project_id: string }>(`SELECT project_id FROM domains WHERE domain = $1 AND status = 'verified'`, [domain]);
  return rows[0]?.project_id;
}
