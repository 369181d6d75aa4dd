import type { Queryable } from '../db/index.ts';
import type { EmailRow } from '../emails/emails.queries.ts';
import { assertCanonical, type DkimKey, dkimSign } from './mime.ts';

/** The client's MIME of every submitted record among `rows`, by submission id (one query per project). */
export function submittedMessages(db: Queryable, rows: EmailRow[]): Promise<Map<string, Buffer>> {
  const refs = rows.flatMap((row) => (row.submission_id ? [{ projectId: row.project_id, submissionId: row.submission_id }] : []));
  return refs.length ? loadSubmissions(db, refs) : Promise.resolve(new Map());
}

/**
 * A submitted message as it leaves (docs/smtp.md): the client's bytes, with a Message-ID (the
 * record's) and a Date when the client gave none (RFC 5322 §3.6 requires both), and our
 * DKIM-Signature on top; a signature of the client's own stays below it. Each of `receiverFields`
 * (Feedback-ID and the like, docs/streams.md) is added when the client gave no field of its name.
 */
export async function signSubmitted(raw: Buffer, row: EmailRow, key: DkimKey, receiverFields: Record<string, string> = {}): Promise<Buffer> {
  const split = raw.indexOf('\r\n\r\n');
  const head = (split === -1 ? raw : raw.subarray(0, split)).toString('binary');
  const added: string[] = [];
  if (!/^message-id[ \t]*:/im.test(head) && row.message_id) added.push(`Message-ID: ${row.message_id}\r\n`);
  if (!/^date[ \t]*:/im.test(head)) added.push(`Date: ${new Date().toUTCString().replace('GMT', '+0000')}\r\n`);
  for (const [name, value] of Object.entries(receiverFields)) {
    if (!new RegExp(`^${name}[ \\t]*:`, 'im').test(head)) added.push(`${name}: ${value}\r\n`);
  }
  const message = added.length ? Buffer.concat([Buffer.from(added.join(''), 'binary'), raw]) : raw;
  assertCanonical(message);
  return dkimSign(message, key);
}

/** The MIME of each submission named, by id; one statement per project (Citus routes it to its node). */
export async function loadSubmissions(db: Queryable, refs: Array<{ projectId: string; submissionId: string }>): Promise<Map<string, Buffer>> {
  const byProject = new Map<string, Set<string>>();
  for (const ref of refs) byProject.set(ref.projectId, (byProject.get(ref.projectId) ?? new Set()).add(ref.submissionId));
  const found = new Map<string, Buffer>();
  for (const [projectId, ids] of byProject) {
    const rows = await db.query<{ id: string; raw: Uint8Array }>('SELECT id, raw FROM smtp_submissions WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, [...ids]]);
    for (const row of rows) found.set(row.id, Buffer.from(row.raw));
  }
  return found;
}
