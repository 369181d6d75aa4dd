import type { Queryable } from '../db/index.ts';
import type { NewEmail } from './emails.queries.ts';

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
  ['submission_id', 'uuid'],
] as const satisfies ReadonlyArray<readonly [keyof NewEmail, string]>;
// Records per statement: 20 parameters each, well under PostgreSQL's 65,535.
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

/** Contacts `c` a set-based insert makes records for: a predicate with its bound parameters, the project `$1`. */
export type RecipientSelection = { predicate: string; params: unknown[] };

/**
 * A contact `c` on the project's (`$1`) suppression list, by address as insertCampaignRecords
 * matches it: a send makes it a SUPPRESSED record, never a message. Campaigns count their
 * audience with it.
 */
export const CONTACT_SUPPRESSED = 'EXISTS (SELECT 1 FROM suppressions s WHERE s.project_id = $1 AND s.email = c.email)';

/** What a campaign's records are made of: its row's sender and content type; the body is rendered at delivery. */
export type CampaignRecordSource = {
  project_id: string;
  id: string;
  from_email: string;
  from_name: string | null;
  reply_to: string | null;
  template_id: string | null;
  type: string;
};

/**
 * A batch of a campaign's audience (docs/decisions/campaigns.md, "Sending"): the contacts with ids
 * after `after` (from the first when null) up to and including `through` (to the last when null).
 */
export type ContactRange = { after: string | null; through: string | null };

/** The range's condition on contacts' (or records') `column`, its bounds bound through `p`. */
function inRange(column: string, range: ContactRange, p: (value: unknown) => string): string {
  const bounds: string[] = [];
  if (range.after !== null) bounds.push(`${column} > ${p(range.after)}::uuid`);
  if (range.through !== null) bounds.push(`${column} <= ${p(range.through)}::uuid`);
  return bounds.length ? bounds.join(' AND ') : 'true';
}

/**
 * The set-based builder (docs/decisions/campaigns.md): one email record per contact of `selection`
 * in `range`, in one INSERT … SELECT. Records carry no content (rendered at delivery,
 * email-rendering.ts); a suppressed address gets a SUPPRESSED record with `suppressedReason` as
 * its error. The unique index emails_campaign_contact_key skips contacts that already have one,
 * so running this twice (a start job retried after a crash) never makes a second record.
 */
export async function insertCampaignRecords(
  tx: Queryable,
  campaign: CampaignRecordSource,
  selection: RecipientSelection,
  range: ContactRange,
  options: { messageDomain: string; suppressedReason: string },
): Promise<void> {
  const params = [...selection.params];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const contacts = `${selection.predicate} AND ${inRange('c.id', range, p)}`;
  await tx.query(
    `INSERT INTO emails (project_id, id, contact_id, to_address, from_address, from_name, reply_to, status, source_type,
       campaign_id, template_id, content_type, message_id, last_error)
     SELECT ${p(campaign.project_id)}::uuid, r.id, r.contact_id, r.email, ${p(campaign.from_email)}, ${p(campaign.from_name)}, ${p(campaign.reply_to)},
       CASE WHEN s.email IS NULL THEN 'QUEUED' ELSE 'SUPPRESSED' END, 'CAMPAIGN', ${p(campaign.id)}::uuid, ${p(campaign.template_id)}::uuid,
       ${p(campaign.type)}, '<' || r.id || '@' || ${p(options.messageDomain)}::text || '>',
       CASE WHEN s.email IS NULL THEN NULL ELSE ${p(options.suppressedReason)}::text END
     FROM (SELECT gen_random_uuid() AS id, c.id AS contact_id, c.email FROM contacts c WHERE ${contacts}) r
     LEFT JOIN suppressions s ON s.project_id = ${p(campaign.project_id)}::uuid AND s.email = r.email
     ON CONFLICT (project_id, campaign_id, contact_id) WHERE campaign_id IS NOT NULL DO NOTHING`,
    params,
  );
}

/** The SUPPRESSED records of a campaign's contacts in `range` (for their email.suppressed events). */
export async function suppressedCampaignRecords(tx: Queryable, projectId: string, campaignId: string, range: ContactRange) {
  const params: unknown[] = [projectId, campaignId];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  return tx.query<{ id: string; contact_id: string | null }>(
    `SELECT id, contact_id FROM emails WHERE project_id = $1 AND campaign_id = $2 AND status = 'SUPPRESSED' AND ${inRange('contact_id', range, p)}`,
    params,
  );
}
