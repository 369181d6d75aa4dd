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
  /** The SMTP submission whose MIME it sends as it is (src/smtp/); null for the rest. */
  submission_id: string | null;
};

/** The lower-cased addresses among `emails` on the project's suppression list. */
export async function findSuppressed(db: Queryable, projectId: string, emails: string[]): Promise<Set<string>> {
  const found = await findSuppressedPairs(
    db,
    emails.map((email) => ({ projectId, email })),
  );
  return new Set(emails.filter((email) => found.has(`${projectId} ${email}`)));
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

/**
 * The project's records sent with any of these Message-IDs: ours (`<record-id@domain>`) and, for an
 * SMTP submission, the client's own, which its records send as they are (docs/smtp.md). For linking
 * an inbound reply to what it answers (docs/inbound.md).
 */
export async function findEmailsByMessageIds(
  db: Queryable,
  projectId: string,
  messageIds: string[],
): Promise<Array<Pick<EmailRow, 'id' | 'to_address' | 'campaign_id' | 'workflow_id' | 'template_id'> & { message_id: string }>> {
  if (messageIds.length === 0) return [];
  return db.query(
    `SELECT id, message_id, to_address, campaign_id, workflow_id, template_id FROM emails WHERE project_id = $1 AND message_id = ANY($2::text[])
     UNION ALL
     SELECT e.id, s.client_message_id AS message_id, e.to_address, e.campaign_id, e.workflow_id, e.template_id
       FROM smtp_submissions s JOIN emails e ON e.project_id = s.project_id AND e.id = ANY(s.email_ids)
      WHERE s.project_id = $1 AND e.project_id = $1 AND s.client_message_id = ANY($2::text[])`,
    [projectId, messageIds],
  );
}

/** An inbound message answering an email record, as GET /emails/{id} lists it (docs/inbound.md). */
export type ReplyRow = {
  id: string;
  from_address: string;
  from_name: string | null;
  subject: string | null;
  attachments: Array<{ filename: string | null; contentType: string; size: number; contentId: string | null }>;
  created_at: Date | string;
};

/** The first `limit` inbound messages linked to the record `emailId`, oldest first. */
export async function listReplies(db: Queryable, projectId: string, emailId: string, limit: number): Promise<ReplyRow[]> {
  return db.query<ReplyRow>(
    `SELECT id, from_address, from_name, subject, attachments, created_at FROM inbound_messages
      WHERE project_id = $1 AND email_id = $2
      ORDER BY created_at, id LIMIT $3`,
    [projectId, emailId, limit],
  );
}
