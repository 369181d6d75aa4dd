import { sealSecret } from '../auth/secrets.ts';
import type { Queryable } from '../db/index.ts';

export type EndpointRow = {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = 'id, url, events, description, enabled, created_at, updated_at';

export async function insertEndpoint(
  db: Queryable,
  projectId: string,
  endpoint: { url: string; events: string[]; description: string | null; secret: string },
): Promise<EndpointRow> {
  const rows = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (project_id, url, events, description, secret)
     VALUES ($1, $2, $3::text[], $4, $5) RETURNING ${COLUMNS}`,
    [projectId, endpoint.url, endpoint.events, endpoint.description, sealSecret(endpoint.secret, 'webhook_endpoints.secret')],
  );
  return rows[0]!;
}

export async function listEndpoints(db: Queryable, projectId: string): Promise<EndpointRow[]> {
  return db.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
}

export async function findEndpoint(db: Queryable, projectId: string, id: string): Promise<EndpointRow | undefined> {
  const rows = await db.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE project_id = $1 AND id = $2`, [projectId, id]);
  return rows[0];
}

/**
 * PATCH: only the fields given change. Enabling clears the service's reason and the failure streak,
 * so an endpoint disabled after 5 days of failures gets 5 more days once enabled again.
 */
export async function updateEndpoint(
  db: Queryable,
  projectId: string,
  id: string,
  change: { url?: string; events?: string[]; description?: string | null; enabled?: boolean },
): Promise<EndpointRow | undefined> {
  const rows = await db.query<EndpointRow>(
    `WITH updated AS (
       UPDATE webhook_endpoints SET
         url = coalesce($3, url),
         events = coalesce($4::text[], events),
         description = CASE WHEN $5::boolean THEN $6 ELSE description END,
         enabled = coalesce($7, enabled),
         disabled_reason = CASE WHEN $7 IS NULL THEN disabled_reason END,
         failing_since = CASE WHEN $7 IS TRUE AND NOT enabled THEN NULL ELSE failing_since END,
         updated_at = now()
       WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}
     ), messages AS (
       -- Enabled: the waiting messages are due now. Disabled: they wait without a due time.
       UPDATE webhook_messages SET next_attempt_at = CASE WHEN $7 THEN now() END
       WHERE project_id = $1 AND endpoint_id = $2 AND status = 'pending' AND $7 IS NOT NULL
         AND EXISTS (SELECT 1 FROM updated) AND (next_attempt_at IS NULL) = $7
     )
     SELECT * FROM updated`,
    [projectId, id, change.url ?? null, change.events ?? null, change.description !== undefined, change.description ?? null, change.enabled ?? null],
  );
  return rows[0];
}

export async function deleteEndpoint(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM webhook_endpoints WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, id]);
  return rows.length > 0;
}

/** The new secret signs from now on; the current one keeps signing beside it until `overlapHours` pass. */
export async function rotateSecret(db: Queryable, projectId: string, id: string, secret: string, overlapHours: number): Promise<boolean> {
  const rows = await db.query(
    `UPDATE webhook_endpoints SET previous_secret = secret, secret = $3,
       previous_secret_until = now() + make_interval(hours => $4), updated_at = now()
     WHERE project_id = $1 AND id = $2 RETURNING id`,
    [projectId, id, sealSecret(secret, 'webhook_endpoints.secret'), overlapHours],
  );
  return rows.length > 0;
}

/** The OWNERs' addresses, for the mail that says an endpoint was disabled. */
export async function findOwnerEmails(db: Queryable, projectId: string): Promise<{ email: string; project_name: string }[]> {
  return db.query(
    `SELECT u.email, p.name AS project_name FROM project_members m
     JOIN users u ON u.id = m.user_id JOIN projects p ON p.id = m.project_id
     WHERE m.project_id = $1 AND m.role = 'OWNER' ORDER BY u.email`,
    [projectId],
  );
}
