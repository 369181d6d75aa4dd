import type { Queryable } from '../db/index.ts';
import { cursorTimestampSql } from '../pagination.ts';

export type InboundAttachment = { filename: string | null; contentType: string; size: number; contentId: string | null };
export type InboundHeader = { name: string; value: string };

/** An inbound_messages row as the listing selects it (no raw MIME, no bodies). */
export type InboundSummaryRow = {
  id: string;
  contact_id: string | null;
  contact_email: string | null;
  message_id: string;
  mail_from: string;
  from_address: string;
  from_name: string | null;
  recipients: string[];
  to_header: string[];
  cc_header: string[];
  subject: string | null;
  attachments: InboundAttachment[];
  in_reply_to: string | null;
  email_id: string | null;
  size: number;
  created_at: Date | string;
};
export type InboundRow = InboundSummaryRow & { text_body: string | null; html: string | null; headers: InboundHeader[] };

export type NewInbound = Omit<InboundRow, 'contact_email' | 'created_at'> & { raw: Buffer };

/**
 * Claims each (Message-ID, recipient) of a received message for `inboundId`; returns the recipients
 * not received before. A copy racing the first one (another worker, a retrying sender) waits on
 * the primary key for the first to commit and then claims nothing.
 */
export async function claimReceipts(tx: Queryable, projectId: string, messageId: string, recipients: string[], inboundId: string): Promise<string[]> {
  if (recipients.length === 0) return [];
  // VALUES with the project written in: a router statement on Citus (docs/citus.md).
  const values = recipients.map((_, i) => `($1, $2, $${i + 4}, $3::uuid)`).join(', ');
  const rows = await tx.query<{ recipient: string }>(
    `INSERT INTO inbound_receipts (project_id, message_id, recipient, inbound_id) VALUES ${values}
     ON CONFLICT (project_id, message_id, recipient) DO NOTHING
     RETURNING recipient`,
    [projectId, messageId, inboundId, ...recipients],
  );
  return rows.map((row) => row.recipient);
}

export async function insertInbound(tx: Queryable, projectId: string, message: NewInbound): Promise<void> {
  await tx.query(
    `INSERT INTO inbound_messages (project_id, id, contact_id, message_id, mail_from, from_address, from_name, recipients, to_header, cc_header,
       subject, text_body, html, headers, attachments, in_reply_to, email_id, size, raw)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15::jsonb, $16, $17, $18, $19)`,
    [
      projectId,
      message.id,
      message.contact_id,
      message.message_id,
      message.mail_from,
      message.from_address,
      message.from_name,
      message.recipients,
      message.to_header,
      message.cc_header,
      message.subject,
      message.text_body,
      message.html,
      JSON.stringify(message.headers),
      JSON.stringify(message.attachments),
      message.in_reply_to,
      message.email_id,
      message.size,
      message.raw,
    ],
  );
}

const SUMMARY_COLUMNS = `m.id, m.contact_id, c.email AS contact_email, m.message_id, m.mail_from, m.from_address, m.from_name, m.recipients,
  m.to_header, m.cc_header, m.subject, m.attachments, m.in_reply_to, m.email_id, m.size, m.created_at`;

export type InboundFilter = { contactId?: string; emailId?: string };

function filterSql(filter: InboundFilter, params: unknown[]): string {
  const where: string[] = [];
  if (filter.contactId) {
    params.push(filter.contactId);
    where.push(`AND m.contact_id = $${params.length}`);
  }
  if (filter.emailId) {
    params.push(filter.emailId);
    where.push(`AND m.email_id = $${params.length}`);
  }
  return where.join(' ');
}

/** The project's received messages, newest first, keyset over (created_at, id). */
export async function listInbound(
  db: Queryable,
  projectId: string,
  query: InboundFilter & { before?: { value: string; id: string }; limit: number },
): Promise<(InboundSummaryRow & { sort_key: string })[]> {
  const params: unknown[] = [projectId, query.limit];
  let where = filterSql(query, params);
  if (query.before) {
    params.push(query.before.value, query.before.id);
    where += ` AND (m.created_at, m.id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  return db.query(
    `SELECT ${SUMMARY_COLUMNS}, ${cursorTimestampSql('m.created_at')} AS sort_key
       FROM inbound_messages m LEFT JOIN contacts c ON c.project_id = m.project_id AND c.id = m.contact_id
      WHERE m.project_id = $1 ${where}
      ORDER BY m.created_at DESC, m.id DESC LIMIT $2`,
    params,
  );
}

export async function countInbound(db: Queryable, projectId: string, filter: InboundFilter): Promise<number> {
  const params: unknown[] = [projectId];
  const where = filterSql(filter, params);
  const rows = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM inbound_messages m WHERE m.project_id = $1 ${where}`, params);
  return rows[0]!.total;
}

export async function findInbound(db: Queryable, projectId: string, id: string): Promise<InboundRow | undefined> {
  const rows = await db.query<InboundRow>(
    `SELECT ${SUMMARY_COLUMNS}, m.text_body, m.html, m.headers
       FROM inbound_messages m LEFT JOIN contacts c ON c.project_id = m.project_id AND c.id = m.contact_id
      WHERE m.project_id = $1 AND m.id = $2`,
    [projectId, id],
  );
  return rows[0];
}

export async function findInboundRaw(db: Queryable, projectId: string, id: string): Promise<Buffer | undefined> {
  const rows = await db.query<{ raw: Uint8Array }>('SELECT raw FROM inbound_messages WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rows[0] && Buffer.from(rows[0].raw);
}

/** The replies to one of our email records, oldest first (a thread reads down). */

/**
 * Removes up to `limit` messages received more than `days` ago, with their receipts (retention,
 * docs/inbound.md). Across projects: the cleanup is the one reader that is not project-scoped.
 * Returns how many messages went.
 */
export async function deleteExpiredInbound(db: Queryable, days: number, limit: number): Promise<number> {
  const rows = await db.query<{ deleted: number }>(
    `WITH expired AS (
       SELECT project_id, id FROM inbound_messages WHERE created_at < now() - make_interval(days => $1) LIMIT $2
     ), deleted AS (
       DELETE FROM inbound_messages m USING expired e WHERE m.project_id = e.project_id AND m.id = e.id RETURNING 1
     )
     SELECT count(*)::int AS deleted FROM deleted`,
    [days, limit],
  );
  await db.query('DELETE FROM inbound_receipts WHERE created_at < now() - make_interval(days => $1)', [days]);
  return rows[0]?.deleted ?? 0;
}
