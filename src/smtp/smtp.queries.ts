import type { Queryable } from '../db/index.ts';

/**
 * Records a submission, unless the project submitted the same client Message-ID within `ttlHours`:
 * then nothing is written and the earlier submission's record ids come back (`repeated`). An older
 * row with that Message-ID gives it up first, so it is sent again. On a race between two copies, the
 * second waits on the unique index for the first to commit, then finds it.
 */
export async function insertSubmission(
  tx: Queryable,
  submission: { projectId: string; id: string; clientMessageId: string | null; raw: Buffer },
  ttlHours: number,
): Promise<{ repeated: false } | { repeated: true; emailIds: string[] }> {
  const { projectId, id, clientMessageId, raw } = submission;
  if (clientMessageId !== null) {
    await tx.query(
      `UPDATE smtp_submissions SET client_message_id = NULL
       WHERE project_id = $1 AND client_message_id = $2 AND created_at < now() - make_interval(hours => $3)`,
      [projectId, clientMessageId, ttlHours],
    );
  }
  const inserted = await tx.query<{ id: string }>(
    `INSERT INTO smtp_submissions (project_id, id, client_message_id, raw) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, client_message_id) DO NOTHING RETURNING id`,
    [projectId, id, clientMessageId, raw],
  );
  if (inserted.length) return { repeated: false };
  const earlier = await tx.query<{ email_ids: string[] }>('SELECT email_ids FROM smtp_submissions WHERE project_id = $1 AND client_message_id = $2', [projectId, clientMessageId]);
  return { repeated: true, emailIds: earlier[0]?.email_ids ?? [] };
}

/** Lists a submission's records on it, for a repeated submission's answer (the records name it too: setSubmission). */
export async function linkSubmissionRecords(tx: Queryable, projectId: string, submissionId: string, emailIds: string[]): Promise<void> {
  await tx.query('UPDATE smtp_submissions SET email_ids = $3::uuid[] WHERE project_id = $1 AND id = $2', [projectId, submissionId, emailIds]);
}

/** The project that verified `domain`: at most one (domains_verified_domain_key). */
export async function findVerifiedDomainProject(db: Queryable, domain: string): Promise<string | undefined> {
  const rows = await db.query<{ project_id: string }>(`SELECT project_id FROM domains WHERE domain = $1 AND status = 'verified'`, [domain]);
  return rows[0]?.project_id;
}
