import type { Queryable } from '../db/index.ts';
import { containsPattern } from '../db/like.ts';
import { detachTemplatesCte } from '../emails/email-detach.queries.ts';
import type { ContentFormat } from './formats.ts';
import type { TemplateRow, TemplateType } from './templates.schemas.ts';

/** Column values of a template write; `undefined` leaves a column unchanged on update. */
export type TemplateValues = {
  name: string;
  description: string | null;
  subject: string;
  body: string;
  fromEmail: string;
  fromName: string | null;
  replyTo: string | null;
  type: TemplateType;
  format: ContentFormat;
  source: string | null;
  editorState: unknown;
};

const json = (value: unknown) => (value === null || value === undefined ? null : JSON.stringify(value));

export async function insertTemplate(db: Queryable, projectId: string, values: TemplateValues): Promise<TemplateRow> {
  const rows = await db.query<TemplateRow>(
    `INSERT INTO templates (project_id, name, description, subject, body, from_email, from_name, reply_to, type, format, source, editor_state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb)
     RETURNING *`,
    [
      projectId,
      values.name,
      values.description,
      values.subject,
      values.body,
      values.fromEmail,
      values.fromName,
      values.replyTo,
      values.type,
      values.format,
      values.source,
      json(values.editorState),
    ],
  );
  return rows[0]!;
}

export async function findTemplate(db: Queryable, projectId: string, id: string): Promise<TemplateRow | undefined> {
  const rows = await db.query<TemplateRow>('SELECT * FROM templates WHERE project_id = $1 AND id = $2', [projectId, id]);
  return rows[0];
}

/**
 * PATCH in one statement. A column is written when its flag in `set` is on, so that an explicit
 * null (clearing description, fromName or replyTo) differs from "not given".
 */
export async function updateTemplate(db: Queryable, projectId: string, id: string, patch: Partial<TemplateValues>): Promise<TemplateRow | undefined> {
  const columns: Array<[keyof TemplateValues, string, 'text' | 'jsonb']> = [
    ['name', 'name', 'text'],
    ['description', 'description', 'text'],
    ['subject', 'subject', 'text'],
    ['body', 'body', 'text'],
    ['fromEmail', 'from_email', 'text'],
    ['fromName', 'from_name', 'text'],
    ['replyTo', 'reply_to', 'text'],
    ['type', 'type', 'text'],
    ['format', 'format', 'text'],
    ['source', 'source', 'text'],
    ['editorState', 'editor_state', 'jsonb'],
  ];
  const params: unknown[] = [projectId, id];
  const assignments = columns.map(([key, column, type]) => {
    params.push(patch[key] !== undefined, type === 'jsonb' ? json(patch[key]) : (patch[key] ?? null));
    const flag = params.length - 1;
    return `${column} = CASE WHEN $${flag}::boolean THEN $${flag + 1}::${type} ELSE t.${column} END`;
  });
  const rows = await db.query<TemplateRow>(
    `UPDATE templates AS t SET ${assignments.join(', ')}, updated_at = now()
     WHERE t.project_id = $1 AND t.id = $2
     RETURNING t.*`,
    params,
  );
  return rows[0];
}

/**
 * Deletes a template; the email records and campaigns made from it stay, without it, detached in
 * the same statement (src/emails/email-detach.queries.ts; on Citus a key's ON DELETE SET NULL
 * cannot exist).
 */
export async function deleteTemplate(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    `WITH records AS (${detachTemplatesCte('$1', 'ARRAY[$2::uuid]')}),
          campaigns_made AS (UPDATE campaigns SET template_id = NULL WHERE project_id = $1 AND template_id = $2)
     DELETE FROM templates WHERE project_id = $1 AND id = $2 RETURNING id`,
    [projectId, id],
  );
  return rows.length > 0;
}

/** A copy of a template under a new id and name, in one statement; undefined when not found. */
export async function duplicateTemplate(db: Queryable, projectId: string, id: string, nameSuffix: string, maxName: number): Promise<{ id: string } | undefined> {
  const rows = await db.query<{ id: string }>(
    `INSERT INTO templates (project_id, name, description, subject, body, from_email, from_name, reply_to, type, format, source, editor_state)
     SELECT project_id, left(name, $4::int - length($3::text)) || $3::text, description, subject, body, from_email, from_name, reply_to, type,
            format, source, editor_state
     FROM templates WHERE project_id = $1 AND id = $2
     RETURNING id`,
    [projectId, id, nameSuffix, maxName],
  );
  return rows[0];
}

export type TemplateSort = 'name' | 'createdAt' | 'updatedAt';
export type TemplateFilters = { type?: TemplateType; search?: string };

// Sort keys as SQL, from a closed set (never from the request text).
const ORDER_BY: Record<TemplateSort, string> = {
  name: 'lower(name) COLLATE "C"',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

function where(projectId: string, filters: TemplateFilters): { sql: string; params: unknown[] } {
  return {
    sql: `project_id = $1
      AND ($2::text IS NULL OR type = $2::text)
      AND ($3::text IS NULL OR name ILIKE $3::text OR description ILIKE $3::text OR subject ILIKE $3::text)`,
    params: [projectId, filters.type ?? null, filters.search ? containsPattern(filters.search) : null],
  };
}

export async function listTemplates(
  db: Queryable,
  projectId: string,
  options: TemplateFilters & { sort: TemplateSort; dir: 'asc' | 'desc'; limit: number; offset: number },
): Promise<TemplateRow[]> {
  const filter = where(projectId, options);
  const dir = options.dir === 'asc' ? 'ASC' : 'DESC';
  return db.query<TemplateRow>(
    `SELECT * FROM templates WHERE ${filter.sql}
     ORDER BY ${ORDER_BY[options.sort]} ${dir}, id ${dir}
     LIMIT $4 OFFSET $5`,
    [...filter.params, options.limit, options.offset],
  );
}

export async function countTemplates(db: Queryable, projectId: string, filters: TemplateFilters): Promise<number> {
  const filter = where(projectId, filters);
  const rows = await db.query<{ total: number }>(`SELECT count(*)::int AS total FROM templates WHERE ${filter.sql}`, filter.params);
  return rows[0]?.total ?? 0;
}

/** The contact whose data renders a preview. */
export async function findContact(db: Queryable, projectId: string, id: string) {
  const rows = await db.query<{ id: string; email: string; data: Record<string, unknown> }>('SELECT id, email, data FROM contacts WHERE project_id = $1 AND id = $2', [
    projectId,
    id,
  ]);
  return rows[0];
}

// --- History (docs/templates.md) ----------------------------------------------------------------

/** A template_versions row, with its author's email when a user saved it. */
export type TemplateVersionRow = {
  version: number;
  subject: string;
  body: string;
  format: ContentFormat;
  source: string | null;
  editor_state: unknown;
  created_at: Date | string;
  created_by: string | null;
  created_by_email: string | null;
};

/** Keeps a template's current content as its next version. */
export async function insertVersion(db: Queryable, projectId: string, row: TemplateRow, createdBy: string | null): Promise<void> {
  await db.query(
    `INSERT INTO template_versions (project_id, template_id, version, subject, body, format, source, editor_state, created_by)
     SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4, $5, $6, $7::jsonb, $8
     FROM template_versions WHERE project_id = $1 AND template_id = $2`,
    [projectId, row.id, row.subject, row.body, row.format, row.source, json(row.editor_state), createdBy],
  );
}

// users is a reference table on Citus: joining it stays on the project's node.
const VERSION_COLUMNS = `v.version, v.subject, v.format, v.created_at, v.created_by, u.email AS created_by_email`;

export async function listVersions(db: Queryable, projectId: string, templateId: string, limit: number): Promise<TemplateVersionRow[]> {
  return db.query<TemplateVersionRow>(
    `SELECT ${VERSION_COLUMNS}, NULL AS body, NULL AS source, NULL AS editor_state
     FROM template_versions v LEFT JOIN users u ON u.id = v.created_by
     WHERE v.project_id = $1 AND v.template_id = $2
     ORDER BY v.version DESC LIMIT $3`,
    [projectId, templateId, limit],
  );
}

export async function findVersion(db: Queryable, projectId: string, templateId: string, version: number): Promise<TemplateVersionRow | undefined> {
  const rows = await db.query<TemplateVersionRow>(
    `SELECT ${VERSION_COLUMNS}, v.body, v.source, v.editor_state
     FROM template_versions v LEFT JOIN users u ON u.id = v.created_by
     WHERE v.project_id = $1 AND v.template_id = $2 AND v.version = $3`,
    [projectId, templateId, version],
  );
  return rows[0];
}

/** The template locked for a write that compares its content before and after. */
export async function findTemplateForUpdate(db: Queryable, projectId: string, id: string): Promise<TemplateRow | undefined> {
  const rows = await db.query<TemplateRow>('SELECT * FROM templates WHERE project_id = $1 AND id = $2 FOR UPDATE', [projectId, id]);
  return rows[0];
}
