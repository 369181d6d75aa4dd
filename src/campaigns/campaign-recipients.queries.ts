import type { Queryable } from '../db/index.ts';
import type { EmailStatus } from '../emails/emails.queries.ts';

export type RecipientRow = {
  id: string;
  contact_id: string | null;
  to_address: string;
  status: EmailStatus;
  last_error: string | null;
  sent_at: Date | string | null;
  delivered_at: Date | string | null;
  opened_at: Date | string | null;
  clicked_at: Date | string | null;
};

/** One page of a campaign's records, by address; the (project_id, campaign_id, status) index narrows them. */
export async function listRecipients(
  db: Queryable,
  projectId: string,
  campaignId: string,
  options: { status?: EmailStatus; search?: string; limit: number; offset: number },
): Promise<{ rows: RecipientRow[]; total: number }> {
  const params: unknown[] = [projectId, campaignId];
  const where = ['project_id = $1', 'campaign_id = $2'];
  if (options.status) where.push(`status = $${params.push(options.status)}`);
  if (options.search) where.push(`strpos(to_address, $${params.push(options.search.toLowerCase())}) > 0`);
  const filter = where.join(' AND ');
  const [rows, counted] = await Promise.all([
    db.query<RecipientRow>(
      `SELECT id, contact_id, to_address, status, last_error, sent_at, delivered_at, opened_at, clicked_at
       FROM emails WHERE ${filter} ORDER BY to_address, id LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      [...params, options.limit, options.offset],
    ),
    db.query<{ total: number }>(`SELECT count(*)::int AS total FROM emails WHERE ${filter}`, params),
  ]);
  return { rows, total: counted[0]?.total ?? 0 };
}
