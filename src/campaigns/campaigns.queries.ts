import type { Queryable } from '../db/index.ts';
import { containsPattern } from '../db/like.ts';
import type { ContentFormat } from '../templates/formats.ts';
import type { AudienceType, CampaignCounts, CampaignFields, CampaignRow, CampaignStatus, CampaignType } from './campaigns.schemas.ts';

/** Column values of a campaign write (create and PUT replace the same set). */
export type CampaignValues = {
  name: string;
  description: string | null;
  subject: string;
  body: string;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  type: CampaignType;
  templateId: string | null;
  audienceType: AudienceType;
  audienceCondition: Record<string, unknown> | null;
  segmentId: string | null;
  totalRecipients: number;
  /** The content's format and its source (docs/templates.md); body is the HTML rendered from it. */
  format: ContentFormat;
  source: string | null;
  editorState: unknown;
};

/** The counters of a campaign's records by status (docs/decisions/campaigns.md: which statuses count where). */
const COUNTERS = `
      count(*) FILTER (WHERE e.status IN ('QUEUED', 'SENDING'))::int AS queued_count,
      count(*) FILTER (WHERE e.status IN ('SENT', 'DELIVERED', 'OPENED', 'CLICKED', 'COMPLAINED', 'BOUNCED'))::int AS sent_count,
      count(*) FILTER (WHERE e.status IN ('DELIVERED', 'OPENED', 'CLICKED', 'COMPLAINED'))::int AS delivered_count,
      count(*) FILTER (WHERE e.status IN ('OPENED', 'CLICKED'))::int AS opened_count,
      count(*) FILTER (WHERE e.status = 'CLICKED')::int AS clicked_count,
      count(*) FILTER (WHERE e.status = 'BOUNCED')::int AS bounced_count,
      count(*) FILTER (WHERE e.status = 'COMPLAINED')::int AS complained_count,
      count(*) FILTER (WHERE e.status = 'FAILED')::int AS failed_count,
      count(*) FILTER (WHERE e.status = 'SUPPRESSED')::int AS suppressed_count`;

/**
 * The counters of a campaign just written (created, replaced or copied: it has no records yet, or
 * few), counted in the same statement. Only `status` is read, so the (project_id, campaign_id,
 * status) index answers it. Every statement using it binds the project as $1: with the constant,
 * Citus runs the join on the project's node even when `p` is a modifying CTE (it refuses a LATERAL
 * join through p.project_id).
 */
const COUNTS = `LEFT JOIN LATERAL (
    SELECT ${COUNTERS}
    FROM emails e WHERE e.project_id = $1 AND e.campaign_id = p.id
  ) n ON true`;

/**
 * The counters of some campaigns of a project, by campaign id, in one statement over the
 * (project_id, campaign_id, status) index; a campaign without records is missing from the map.
 * Reads go through campaign-counts.ts, which decides when a large campaign is counted again.
 */
export async function countRecords(db: Queryable, projectId: string, campaignIds: string[]): Promise<Map<string, CampaignCounts>> {
  const rows = await db.query<CampaignCounts & { campaign_id: string }>(
    `SELECT e.campaign_id, ${COUNTERS}
     FROM emails e WHERE e.project_id = $1 AND e.campaign_id = ANY($2::uuid[])
     GROUP BY e.campaign_id`,
    [projectId, campaignIds],
  );
  return new Map(rows.map(({ campaign_id, ...counts }) => [campaign_id, counts]));
}

const valueParams = (v: CampaignValues) => [
  v.name,
  v.description,
  v.subject,
  v.body,
  v.fromEmail,
  v.fromName,
  v.replyTo,
  v.type,
  v.templateId,
  v.audienceType,
  v.audienceCondition === null ? null : JSON.stringify(v.audienceCondition),
  v.segmentId,
  v.totalRecipients,
  v.format,
  v.source,
  v.editorState === null || v.editorState === undefined ? null : JSON.stringify(v.editorState),
];

export async function insertCampaign(db: Queryable, projectId: string, values: CampaignValues): Promise<CampaignRow> {
  const rows = await db.query<CampaignRow>(
    `WITH p AS (
       INSERT INTO campaigns (project_id, name, description, subject, body, from_email, from_name, reply_to, type, template_id,
         audience_type, audience_condition, segment_id, total_recipients, format, source, editor_state)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb, $13, $14, $15, $16, $17::jsonb)
       RETURNING *
     )
     SELECT p.*, n.* FROM p ${COUNTS}`,
    [projectId, ...valueParams(values)],
  );
  return rows[0]!;
}

/** The campaign row, without its counters (campaign-counts.ts adds them where a response shows them). */
export async function findCampaign(db: Queryable, projectId: string, id: string): Promise<CampaignFields | undefined> {
  const rows = await db.query<CampaignFields>('SELECT * FROM campaigns WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rows[0];
}

/**
 * The campaign row alone, locked for a state change; undefined when missing (or, with skipLocked,
 * busy). `due`: its scheduled time has come by the database's clock (the one pg-boss's delayed
 * jobs follow), with a second of slack.
 */
export async function lockCampaign(tx: Queryable, projectId: string, id: string, skipLocked = false): Promise<(CampaignFields & { due: boolean }) | undefined> {
  const rows = await tx.query<CampaignFields & { due: boolean }>(
    `SELECT *, coalesce(scheduled_for <= now() + interval '1 second', false) AS due
     FROM campaigns WHERE project_id = $1 AND id = $2 FOR UPDATE${skipLocked ? ' SKIP LOCKED' : ''}`,
    [projectId, id],
  );
  return rows[0];
}

/** PUT: replaces the content while the campaign is DRAFT or SCHEDULED; undefined otherwise. */
export async function replaceCampaign(db: Queryable, projectId: string, id: string, values: CampaignValues): Promise<CampaignRow | undefined> {
  const rows = await db.query<CampaignRow>(
    `WITH p AS (
       UPDATE campaigns SET name = $3, description = $4, subject = $5, body = $6, from_email = $7, from_name = $8, reply_to = $9,
         type = $10, template_id = $11, audience_type = $12, audience_condition = $13::jsonb, segment_id = $14,
         total_recipients = $15, format = $16, source = $17, editor_state = $18::jsonb, updated_at = now()
       WHERE project_id = $1 AND id = $2 AND status IN ('DRAFT', 'SCHEDULED')
       RETURNING *
     )
     SELECT p.*, n.* FROM p ${COUNTS}`,
    [projectId, id, ...valueParams(values)],
  );
  return rows[0];
}

/**
 * Moves a campaign to `status`; SENDING also stamps sent_at (docs/decisions/campaigns.md). `scheduledFor`: the
 * time to store (SCHEDULED), or null to clear it (sent now: the API reference's null for immediate sends).
 * The time comes from the `clock` CTE: Citus refuses now() inside CASE in a write.
 */
export async function setStatus(
  tx: Queryable,
  projectId: string,
  id: string,
  change: { status: CampaignStatus; scheduledFor?: Date | null; totalRecipients?: number },
): Promise<void> {
  await tx.query(
    `WITH clock AS MATERIALIZED (SELECT now() AS now)
     UPDATE campaigns SET status = $3,
       scheduled_for = CASE WHEN $6::boolean THEN $4::timestamptz ELSE scheduled_for END,
       sent_at = CASE WHEN $3 = 'SENDING' THEN clock.now ELSE sent_at END,
       total_recipients = coalesce($5::int, total_recipients),
       updated_at = clock.now
       FROM clock
     WHERE project_id = $1 AND id = $2`,
    [projectId, id, change.status, change.scheduledFor?.toISOString() ?? null, change.totalRecipients ?? null, change.scheduledFor !== undefined],
  );
}

export async function deleteCampaign(tx: Queryable, projectId: string, id: string): Promise<void> {
  await tx.query('DELETE FROM campaigns WHERE project_id = $1 AND id = $2', [projectId, id]);
}

/** A DRAFT copy under a new id and name, in one statement; undefined when not found. */
export async function duplicateCampaign(db: Queryable, projectId: string, id: string, nameSuffix: string, maxName: number): Promise<CampaignRow | undefined> {
  const rows = await db.query<CampaignRow>(
    `WITH p AS (
       INSERT INTO campaigns (project_id, name, description, subject, body, from_email, from_name, reply_to, type, template_id,
         audience_type, audience_condition, segment_id, total_recipients, format, source, editor_state)
       SELECT project_id, left(name, $4::int - length($3::text)) || $3::text, description, subject, body, from_email, from_name,
         reply_to, type, template_id, audience_type, audience_condition, segment_id, 0, format, source, editor_state
       FROM campaigns WHERE project_id = $1 AND id = $2
       RETURNING *
     )
     SELECT p.*, n.* FROM p ${COUNTS}`,
    [projectId, id, nameSuffix, maxName],
  );
  return rows[0];
}

export async function setTotalRecipients(db: Queryable, projectId: string, id: string, total: number): Promise<void> {
  await db.query('UPDATE campaigns SET total_recipients = $3 WHERE project_id = $1 AND id = $2', [projectId, id, total]);
}

export type CampaignSort = 'name' | 'createdAt' | 'updatedAt';
export type CampaignFilters = { status?: CampaignStatus; search?: string };

// Sort keys as SQL, from a closed set (never from the request text).
const ORDER_BY: Record<CampaignSort, string> = { name: 'lower(name) COLLATE "C"', createdAt: 'created_at', updatedAt: 'updated_at' };

function where(projectId: string, filters: CampaignFilters): { sql: string; params: unknown[] } {
  return {
    sql: `project_id = $1
      AND ($2::text IS NULL OR status = $2::text)
      AND ($3::text IS NULL OR name ILIKE $3::text OR subject ILIKE $3::text OR from_email ILIKE $3::text)`,
    params: [projectId, filters.status ?? null, filters.search ? containsPattern(filters.search) : null],
  };
}

export async function listCampaigns(
  db: Queryable,
  projectId: string,
  options: CampaignFilters & { sort: CampaignSort; dir: 'asc' | 'desc'; limit: number; offset: number },
): Promise<CampaignFields[]> {
  const filter = where(projectId, options);
  const order = `${ORDER_BY[options.sort]} ${options.dir === 'asc' ? 'ASC' : 'DESC'}, id ${options.dir === 'asc' ? 'ASC' : 'DESC'}`;
  // The page alone: campaign-counts.ts counts the records of its rows.
  return db.query<CampaignFields>(`SELECT * FROM campaigns WHERE ${filter.sql} ORDER BY ${order} LIMIT $4 OFFSET $5`, [...filter.params, options.limit, options.offset]);
}

export async function countCampaigns(db: Queryable, projectId: string, filters: CampaignFilters): Promise<number> {
  const filter = where(projectId, filters);
  const rows = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM campaigns WHERE ${filter.sql}`, filter.params);
  return rows[0]?.total ?? 0;
}

/** Campaigns made from a template (GET /templates/{id}/usage). */
export async function campaignsUsingTemplate(db: Queryable, projectId: string, templateId: string) {
  return db.query<{ id: string; name: string; status: string }>('SELECT id, name, status FROM campaigns WHERE project_id = $1 AND template_id = $2 ORDER BY created_at, id', [
    projectId,
    templateId,
  ]);
}

/**
 * FILTERED campaigns whose condition has a filter on `field` (docs/decisions/segments.md field names such as
 * `data.plan`, `email`, `event.signup`), at any depth of the tree.
 */
export async function campaignsFilteringOn(db: Queryable, projectId: string, field: string) {
  return db.query<{ id: string; name: string; status: string }>(
    `SELECT id, name, status FROM campaigns
     WHERE project_id = $1 AND audience_type = 'FILTERED'
       AND jsonb_path_exists(audience_condition, 'strict $.**.field ? (@ == $f)', jsonb_build_object('f', $2::text))
     ORDER BY created_at, id`,
    [projectId, field],
  );
}

/** Scheduled campaigns due no later than `until`, soonest first (GET /activity/upcoming). */
export async function findScheduledCampaigns(db: Queryable, projectId: string, until: Date, limit: number) {
  return db.query<{ id: string; name: string; scheduled_for: Date; total_recipients: number }>(
    `SELECT id, name, scheduled_for, total_recipients FROM campaigns
     WHERE project_id = $1 AND status = 'SCHEDULED' AND scheduled_for <= $2
     ORDER BY scheduled_for, id LIMIT $3`,
    [projectId, until.toISOString(), limit],
  );
}

/**
 * The campaign's records waiting for their domain's next warm-up day (docs/streams.md): QUEUED with
 * the warm-up's note (`notePrefix`) as their last error, and the latest time one of them waits until.
 */
export async function findWarmupWaits(db: Queryable, projectId: string, campaignId: string, notePrefix: string): Promise<{ count: number; until: Date | string | null }> {
  const rows = await db.query<{ count: number; until: Date | string | null }>(
    `SELECT count(*)::int AS count, max(next_attempt_at) AS until FROM emails
     WHERE project_id = $1 AND campaign_id = $2 AND status = 'QUEUED' AND starts_with(last_error, $3)`,
    [projectId, campaignId, notePrefix],
  );
  return rows[0]!;
}
