import { listAuditEntries } from '../audit/audit.queries.ts';
import { MANAGERS } from '../auth/auth.queries.ts';
import type { Deps } from '../deps.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, pageOf } from '../pagination.ts';
import { requireRole } from './projects.service.ts';

const CURSOR = { sort: 'audit', dir: 'desc' as const };

/** GET /projects/{id}/audit-log: OWNER and ADMIN only, newest first, cursor-paginated. */
export async function auditLog(deps: Pick<Deps, 'db' | 'config'>, projectId: string, userId: string, input: { limit?: number; cursor?: string; action?: string }) {
  await requireRole(deps, projectId, userId, MANAGERS, 'read the audit log');
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const before = input.cursor ? decodeCursor(secret, input.cursor, { ...CURSOR, checkValue: isCursorTimestamp }) : undefined;
  const rows = await listAuditEntries(deps.db, projectId, { action: input.action, before, limit: limit + 1 });
  // The audit log answers no total.
  const { total: _total, ...page } = await pageOf(secret, rows, {
    limit,
    at: CURSOR,
    map: (row) => ({
      id: row.id,
      action: row.action,
      actor: row.actor_id ? { id: row.actor_id, email: row.actor_email } : null,
      details: row.details,
      createdAt: new Date(row.created_at).toISOString(),
    }),
    total: undefined,
  });
  return page;
}
