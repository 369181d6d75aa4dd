import type { Queryable } from '../db/index.ts';

/** A submission to record: its id, the client's Message-ID (null without one) and its MIME. */
export type NewSubmission = { id: string; clientMessageId: string | null; raw: Buffer };

/**
 * Records a project's submissions in one statement, except those whose client Message-ID the
 * project submitted within `ttlHours`: for each of those nothing is written and the earlier
 * submission's record ids come back (`repeated`), in `submissions` order. An older row with that
 * Message-ID gives it up, and the new one is recorded after all, so it is sent again. On a race
 * between two copies, the second waits on the unique index for the first to commit, then finds it.
 * No two of `submissions` may share a Message-ID (src/smtp/submission-writer.ts keeps them apart).
 */
export async function insertSubmissions(
  tx: Queryable,
  projectId: string,
  submissions: NewSubmission[],
  ttlHours: number,
): Promise<Array<{ repeated: false } | { repeated: true; emailIds: string[] }>> {
  const recorded = await insertNew(tx, projectId, submissions);
  let repeats = submissions.filter((s) => !recorded.has(s.id));
  if (repeats.length) {
    await tx.query(
      `UPDATE smtp_submissions SET client_message_id = NULL
       WHERE project_id = $1 AND client_message_id = ANY($2::text[]) AND created_at < now() - make_interval(hours => $3)`,
      [projectId, repeats.map((s) => s.clientMessageId), ttlHours],
    );
    for (const id of await insertNew(tx, projectId, repeats)) recorded.add(id);
    repeats = repeats.filter((s) => !recorded.has(s.id));
  }
  const earlier = new Map<string, string[]>();
  if (repeats.length) {
    const found = await tx.query<{ client_message_id: string; email_ids: string[] }>(
      'SELECT client_message_id, email_ids FROM smtp_submissions WHERE project_id = $1 AND client_message_id = ANY($2::text[])',
      [projectId, repeats.map((s) => s.clientMessageId)],
    );
    for (const row of found) earlier.set(row.client_message_id, row.email_ids);
  }
  return submissions.map((s) => (recorded.has(s.id) ? { repeated: false } : { repeated: true, emailIds: earlier.get(s.clientMessageId!) ?? [] }));
}

/** Inserts the submissions whose Message-ID no row holds; returns the ids inserted. */
async function insertNew(tx: Queryable, projectId: string, submissions: NewSubmission[]): Promise<Set<string>> {
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
  return new Set(inserted.map((row) => row.id));
}

/** Forgets submissions whose send was refused in the same transaction (nothing of theirs is kept). */
export async function deleteSubmissions(tx: Queryable, projectId: string, ids: string[]): Promise<void> {
  if (ids.length) await tx.query('DELETE FROM smtp_submissions WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, ids]);
}

/**
 * Names each submission's records in its row, one statement for all of them: a repeat of its
 * Message-ID answers with them (the records name their submission themselves: emails.submission_id).
 */
export async function linkSubmissionRecords(tx: Queryable, projectId: string, links: Array<{ submissionId: string; emailIds: string[] }>): Promise<void> {
  if (links.length === 0) return;
  await tx.query(
    `UPDATE smtp_submissions s SET email_ids = v.email_ids
     FROM jsonb_to_recordset($2::jsonb) AS v(id uuid, email_ids uuid[])
     WHERE s.project_id = $1 AND s.id = v.id`,
    [projectId, JSON.stringify(links.map((link) => ({ id: link.submissionId, email_ids: link.emailIds })))],
  );
}

/** The project that verified `domain`: at most one (domains_verified_domain_key). */
export async function findVerifiedDomainProject(db: Queryable, domain: string): Promise<string | undefined> {
  const rows = await db.query<{ project_id: string }>(`SELECT project_id FROM domains WHERE domain = $1 AND status = 'verified'`, [domain]);
  return rows[0]?.project_id;
}
