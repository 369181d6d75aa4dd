import type { Queryable } from '../db/index.ts';
import { cursorTimestampSql } from '../pagination.ts';

export const EMAIL_STATUSES = ['QUEUED', 'SENDING', 'SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED'] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];
export type SourceType = 'TRANSACTIONAL' | 'CAMPAIGN' | 'WORKFLOW';
export type ContentType = 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS';
/** docs/streams.md: marketing for campaigns and MARKETING content, transactional for the rest. */
export type Stream = 'transactional' | 'marketing';
export const STREAMS = ['transactional', 'marketing'] as const satisfies readonly Stream[];

/** An emails row as the queries select it (migrations/0008_emails.sql). */
export type EmailRow = {
  project_id: string;
  id: string;
  contact_id: string | null;
  to_address: string;
  to_name: string | null;
  from_address: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string | null;
  html: string | null;
  text_body: string | null;
  headers: Record<string, string>;
  status: EmailStatus;
  source_type: SourceType;
  campaign_id: string | null;
  template_id: string | null;
  workflow_id: string | null;
  content_type: ContentType;
  message_id: string | null;
  attempts: number;
  next_attempt_at: Date | string;
  handed_off_at: Date | string | null;
  /** Sends again after a hand-off whose answer never came (docs/decisions/sending.md: at least once). */
  resends: number;
  claimed_by: number | null;
  last_error: string | null;
  created_at: Date | string;
  sent_at: Date | string | null;
  delivered_at: Date | string | null;
  opened_at: Date | string | null;
  clicked_at: Date | string | null;
  bounced_at: Date | string | null;
  complained_at: Date | string | null;
  opens: number;
  clicks: number;
  /** An SMTP submission whose MIME the record sends as it is (src/smtp/); null for the rest. */
  submission_id: string | null;
  /** docs/streams.md: derived by the database from source_type and content_type (migrations/0075_email_streams.sql). */
  stream: Stream;
};

/** One record to create; `status` QUEUED, or SUPPRESSED with `last_error` saying why. */
export type NewEmail = {
  id: string;
  contact_id: string | null;
  to_address: string;
  to_name: string | null;
  from_address: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  html: string;
  text_body: string;
  headers: Record<string, string>;
  status: 'QUEUED' | 'SUPPRESSED';
  source_type: SourceType;
  campaign_id: string | null;
  template_id: string | null;
  workflow_id: string | null;
  content_type: ContentType;
  message_id: string;
  last_error: string | null;
};

// The columns of insertEmails after project_id, each with its type.
const RECORD_COLUMNS = [
  ['id', 'uuid'],
  ['contact_id', 'uuid'],
  ['to_address', 'text'],
  ['to_name', 'text'],
  ['from_address', 'text'],
  ['from_name', 'text'],
  ['reply_to', 'text'],
  ['subject', 'text'],
  ['html', 'text'],
  ['text_body', 'text'],
  ['headers', 'jsonb'],
  ['status', 'text'],
  ['source_type', 'text'],
  ['campaign_id', 'uuid'],
  ['template_id', 'uuid'],
  ['workflow_id', 'uuid'],
  ['content_type', 'text'],
  ['message_id', 'text'],
  ['last_error', 'text'],
] as const satisfies ReadonlyArray<readonly [keyof NewEmail, string]>;
// Records per statement: 19 parameters each, well under PostgreSQL's 65,535.
const RECORDS_PER_INSERT = 1_000;

/**
 * Inserts the records of a send, in one statement per 1,000 (docs/architecture.md: few statements per
 * request). Rows as `VALUES` with the project written in: Citus runs it on the project's node alone.
 */
export async function insertEmails(tx: Queryable, projectId: string, emails: NewEmail[]): Promise<void> {
  for (let start = 0; start < emails.length; start += RECORDS_PER_INSERT) {
    const params: unknown[] = [projectId];
    const rows = emails.slice(start, start + RECORDS_PER_INSERT).map((email) => {
      const cells = RECORD_COLUMNS.map(([column, type]) => {
        params.push(column === 'headers' ? JSON.stringify(email.headers ?? {}) : email[column]);
        return `$${params.length}::${type}`;
      });
      return `($1, ${cells.join(', ')})`;
    });
    await tx.query(`INSERT INTO emails (project_id, ${RECORD_COLUMNS.map(([column]) => column).join(', ')}) VALUES ${rows.join(', ')}`, params);
  }
}

export type NewAttachment = { filename: string; contentType: string; contentId: string | null; disposition: 'attachment' | 'inline'; base64: string };

/**
 * The same attachments for each of `emailIds`, in one statement: the base64 travels once and is
 * decoded by the database, so a 10 MB attachment is not re-encoded per recipient in the process.
 */
export async function insertAttachments(tx: Queryable, projectId: string, emailIds: string[], attachments: NewAttachment[]): Promise<void> {
  if (emailIds.length === 0 || attachments.length === 0) return;
  await tx.query(
    `INSERT INTO email_attachments (project_id, email_id, position, filename, content_type, content_id, disposition, content)
     SELECT $1, e.id, a.position - 1, a.item->>'filename', a.item->>'contentType', a.item->>'contentId', a.item->>'disposition',
       decode(a.item->>'base64', 'base64')
     FROM unnest($2::uuid[]) AS e(id)
     CROSS JOIN jsonb_array_elements($3::jsonb) WITH ORDINALITY AS a(item, position)`,
    [projectId, emailIds, JSON.stringify(attachments)],
  );
}

/** The lower-cased addresses among `emails` on the project's suppression list. */
export async function findSuppressed(db: Queryable, projectId: string, emails: string[]): Promise<Set<string>> {
  const found = await findSuppressedPairs(
    db,
    emails.map((email) => ({ projectId, email })),
  );
  return new Set(emails.filter((email) => found.has(`${projectId} ${email}`)));
}

/**
 * Refreshes the planner's statistics of `emails` after a bulk insert (a campaign's audience), as
 * PostgreSQL advises after bulk loading. The delivery worker's statements are planned from them:
 * a table that grew by thousands of rows since autovacuum last looked got plans for a small one
 * (measured on a new database: each claim sorted every due record, and each hand-off hashed the
 * whole due index; 45 % more database time per message). Reads a sample of at most 30,000 rows.
 */
export async function refreshEmailStatistics(tx: Queryable): Promise<void> {
  await tx.query('ANALYZE emails');
}

/** findSuppressed across projects: the `${projectId} ${email}` of each pair on its project's list. */
export async function findSuppressedPairs(db: Queryable, pairs: Array<{ projectId: string; email: string }>): Promise<Set<string>> {
  if (pairs.length === 0) return new Set();
  const rows = await db.query<{ project_id: string; email: string }>(
    `SELECT s.project_id, s.email FROM suppressions s
     JOIN unnest($1::uuid[], $2::text[]) AS p(project_id, email) ON s.project_id = p.project_id AND s.email = p.email`,
    [pairs.map((pair) => pair.projectId), pairs.map((pair) => pair.email)],
  );
  return new Set(rows.map((row) => `${row.project_id} ${row.email}`));
}

export async function findEmail(db: Queryable, projectId: string, id: string): Promise<EmailRow | undefined> {
  const rows = await db.query<EmailRow>('SELECT * FROM emails WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rows[0];
}

/** A contact's records, newest first, keyset over (created_at, id) (emails_project_contact_idx). */
export async function listContactEmails(
  db: Queryable,
  projectId: string,
  contactId: string,
  query: { before?: { value: string; id: string }; limit: number },
): Promise<(EmailRow & { sort_key: string })[]> {
  const params: unknown[] = [projectId, contactId, query.limit];
  let before = '';
  if (query.before) {
    params.push(query.before.value, query.before.id);
    before = 'AND (created_at, id) < ($4::timestamptz, $5::uuid)';
  }
  return db.query(
    `SELECT *, ${cursorTimestampSql('created_at')} AS sort_key FROM emails
     WHERE project_id = $1 AND contact_id = $2 ${before}
     ORDER BY created_at DESC, id DESC LIMIT $3`,
    params,
  );
}

export async function countContactEmails(db: Queryable, projectId: string, contactId: string): Promise<number> {
  const rows = await db.query<{ total: number }>('SELECT count(*)::int AS total FROM emails WHERE project_id = $1 AND contact_id = $2', [projectId, contactId]);
  return rows[0]!.total;
}
