import type { Role } from '../auth/auth.queries.ts';
import { openSecret, sealSecret } from '../auth/secrets.ts';
import type { Queryable } from '../db/index.ts';
import type { TrackingMode, TrackingSettings } from '../links/tracking.ts';

export type Project = {
  id: string;
  name: string;
  publicKey: string;
  secretKey: string;
  disabled: boolean;
  tracking: TrackingSettings;
  requireTwoFactor: boolean;
  createdAt: string;
  updatedAt: string;
};

type RawProject = {
  id: string;
  name: string;
  public_key: string;
  secret_key: string;
  disabled: boolean;
  tracking_opens: TrackingMode;
  tracking_clicks: TrackingMode;
  require_two_factor: boolean;
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = 'id, name, public_key, secret_key, disabled, tracking_opens, tracking_clicks, require_two_factor, created_at, updated_at';

const toProject = (row: RawProject): Project => ({
  id: row.id,
  name: row.name,
  publicKey: row.public_key,
  secretKey: openSecret(row.secret_key, 'projects.secret_key'),
  disabled: row.disabled,
  tracking: { opens: row.tracking_opens, clicks: row.tracking_clicks },
  requireTwoFactor: row.require_two_factor,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

export type KeyPair = { publicKey: string; secretKey: string; publicKeyHash: string; secretKeyHash: string };

/** Creates the project and makes `ownerId` its OWNER in one statement. */
export async function insertProject(db: Queryable, ownerId: string, name: string, keys: KeyPair): Promise<Project> {
  const rows = await db.query<RawProject>(
    `WITH project AS (
       INSERT INTO projects (name, public_key, secret_key, public_key_hash, secret_key_hash)
       VALUES ($2, $3, $4, $5, $6) RETURNING ${COLUMNS}
     ), owner AS (
       INSERT INTO project_members (project_id, user_id, role) SELECT id, $1, 'OWNER' FROM project
     )
     SELECT ${COLUMNS} FROM project`,
    [ownerId, name, keys.publicKey, sealSecret(keys.secretKey, 'projects.secret_key'), keys.publicKeyHash, keys.secretKeyHash],
  );
  return toProject(rows[0]!);
}

export async function listProjectsOfUser(db: Queryable, userId: string): Promise<(Project & { role: Role })[]> {
  const rows = await db.query<RawProject & { role: Role }>(
    `SELECT p.id, p.name, p.public_key, p.secret_key, p.disabled, p.tracking_opens, p.tracking_clicks, p.require_two_factor, p.created_at, p.updated_at, m.role
       FROM project_members m JOIN projects p ON p.id = m.project_id
      WHERE m.user_id = $1
      ORDER BY p.created_at, p.id`,
    [userId],
  );
  return rows.map((row) => ({ ...toProject(row), role: row.role }));
}

export type ProjectChanges = { name?: string; disabled?: boolean; tracking?: Partial<TrackingSettings>; requireTwoFactor?: boolean; marketingPaused?: false };

/** Renames, disables and sets tracking; re-enabling clears the reason a project was disabled for. */
export async function updateProject(db: Queryable, projectId: string, changes: ProjectChanges): Promise<Project | undefined> {
  const rows = await db.query<RawProject>(
    `UPDATE projects
        SET name = COALESCE($2, name),
            disabled = COALESCE($3, disabled),
            disabled_reason = CASE WHEN $3::boolean IS FALSE THEN NULL ELSE disabled_reason END,
            tracking_opens = COALESCE($4, tracking_opens),
            tracking_clicks = COALESCE($5, tracking_clicks),
            require_two_factor = COALESCE($6, require_two_factor),
            updated_at = now()
      WHERE id = $1
      RETURNING ${COLUMNS}`,
    [projectId, changes.name ?? null, changes.disabled ?? null, changes.tracking?.opens ?? null, changes.tracking?.clicks ?? null, changes.requireTwoFactor ?? null],
  );
  return rows[0] ? toProject(rows[0]) : undefined;
}

/** What a project change is compared with, its row locked until the transaction ends. */
export type ProjectBeforeChange = {
  name: string;
  disabled: boolean;
  disabled_reason: string | null;
  /** Disabled by the service for its bounce or complaint rate (docs/decisions/reputation.md). */
  by_service: boolean;
  tracking_opens: TrackingMode;
  tracking_clicks: TrackingMode;
  require_two_factor: boolean;
};

export async function lockProjectForChange(tx: Queryable, projectId: string): Promise<ProjectBeforeChange | undefined> {
  const rows = await tx.query<ProjectBeforeChange>(
    `SELECT p.name, p.disabled, p.disabled_reason, (r.disabled_at IS NOT NULL) AS by_service, p.tracking_opens, p.tracking_clicks, p.require_two_factor
     FROM projects p LEFT JOIN project_reputation r ON r.project_id = p.id
     WHERE p.id = $1 FOR NO KEY UPDATE OF p`,
    [projectId],
  );
  return rows[0];
}

export async function replaceKeys(db: Queryable, projectId: string, keys: KeyPair): Promise<boolean> {
  const rows = await db.query(
    `UPDATE projects
        SET public_key = $2, secret_key = $3, public_key_hash = $4, secret_key_hash = $5, updated_at = now()
      WHERE id = $1 RETURNING id`,
    [projectId, keys.publicKey, sealSecret(keys.secretKey, 'projects.secret_key'), keys.publicKeyHash, keys.secretKeyHash],
  );
  return rows.length > 0;
}

export async function deleteProject(db: Queryable, projectId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM projects WHERE id = $1 RETURNING id', [projectId]);
  return rows.length > 0;
}

export async function findProjectName(db: Queryable, projectId: string): Promise<string | undefined> {
  const rows = await db.query<{ name: string }>('SELECT name FROM projects WHERE id = $1', [projectId]);
  return rows[0]?.name;
}
