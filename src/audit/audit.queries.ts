import type { Queryable } from '../db/index.ts';
import { cursorTimestampSql } from '../pagination.ts';

/** What an audit entry records (docs/decisions/administration.md lists when each is written). */
export type AuditAction =
  | 'project.renamed'
  | 'project.disabled'
  | 'project.enabled'
  | 'project.marketing_paused'
  | 'project.marketing_resumed'
  | 'project.keys_rotated'
  | 'project.api_key_created'
  | 'project.api_key_revoked'
  | 'project.reset'
  | 'member.added'
  | 'member.invited'
  | 'member.role_changed'
  | 'member.removed'
  | 'billing.limits_changed'
  | 'suppression.added'
  | 'suppression.removed'
  | 'project.tracking_changed'
  | 'project.two_factor_requirement_changed';

export type AuditEntry = { actorId: string | null; action: AuditAction; details?: Record<string, unknown> };

/**
 * Appends an entry, inside the caller's transaction so it exists exactly when the change commits.
 * The actor's email is copied in, so the entry still says who acted after the account is gone.
 */
export async function insertAuditEntry(tx: Queryable, projectId: string, entry: AuditEntry): Promise<void> {
  await tx.query(
    `INSERT INTO audit_log (project_id, actor_id, actor_email, action, details)
     SELECT $1, $2::uuid, (SELECT email FROM users WHERE id = $2::uuid), $3, $4::jsonb`,
    [projectId, entry.actorId, entry.action, JSON.stringify(entry.details ?? {})],
  );
}

export type AuditRow = {
  id: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  details: Record<string, unknown>;
  created_at: Date;
  sort_key: string;
};

/** Newest first, keyset over (created_at, id). */
export async function listAuditEntries(db: Queryable, projectId: string, query: { action?: string; before?: { value: string; id: string }; limit: number }): Promise<AuditRow[]> {
  const where = ['project_id = $1'];
  const params: unknown[] = [projectId];
  if (query.action !== undefined) {
    params.push(query.action);
    where.push(`action = $${params.length}`);
  }
  if (query.before) {
    params.push(query.before.value, query.before.id);
    where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`);
  }
  params.push(query.limit);
  return db.query<AuditRow>(
    `SELECT id, actor_id, actor_email, action, details, created_at, ${cursorTimestampSql('created_at')} AS sort_key
     FROM audit_log WHERE ${where.join(' AND ')}
     ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
}

/** The project's automatic suspensions (GET …/security `suspensions`), newest first. */
export async function listSuspensions(db: Queryable, projectId: string, limit: number): Promise<Array<{ reason: string | null; created_at: Date }>> {
  return db.query(
    `SELECT details->>'reason' AS reason, created_at FROM audit_log
     WHERE project_id = $1 AND action = 'project.disabled' AND actor_id IS NULL
     ORDER BY created_at DESC, id DESC LIMIT $2`,
    [projectId, limit],
  );
}
