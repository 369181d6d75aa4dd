import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import { MANAGERS } from '../auth/auth.queries.ts';
import type { Deps } from '../deps.ts';
import { forbidden, notFound } from '../errors.ts';
import { recordEvents } from '../events/events.service.ts';
import type { ProjectContext } from '../http/auth.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, type Page, pageOf } from '../pagination.ts';
import {
  countSuppressions,
  deleteSuppression,
  insertSuppression,
  listSuppressions,
  type StoredReason,
  type SuppressionRow,
  unsubscribeForSuppression,
} from './suppressions.queries.ts';
import type { Suppression, SuppressionReason } from './suppressions.schemas.ts';

type SuppressionDeps = Pick<Deps, 'db' | 'config'>;

const CURSOR = { sort: 'suppressions', dir: 'desc' as const };
// The tie-breaker of the keyset is the address itself (the list's key), not a UUID.
const isAddress = (value: string) => value.length > 0 && value.length <= 254 && value.includes('@');

const toStored = (reason: SuppressionReason): StoredReason => reason.toLowerCase() as StoredReason;
const toReason = (reason: StoredReason): SuppressionReason => reason.toUpperCase() as SuppressionReason;

function toSuppression(row: SuppressionRow): Suppression {
  return {
    email: row.email,
    reason: toReason(row.reason),
    createdAt: new Date(row.created_at).toISOString(),
    ...(row.email_id ? { emailId: row.email_id } : {}),
  };
}

/** GET /suppressions: newest first, cursor-paginated; `total` on the first page only (the API reference (Conventions)). */
export async function listSuppressionPage(deps: SuppressionDeps, projectId: string, input: { limit?: number; cursor?: string; search?: string }): Promise<Page<Suppression>> {
  const secret = deps.config.sessionSecret;
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const before = input.cursor ? decodeCursor(secret, input.cursor, { ...CURSOR, checkValue: isCursorTimestamp, checkId: isAddress }) : undefined;
  const search = input.search?.trim() || undefined;
  const rows = await listSuppressions(deps.db, projectId, { search, before, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at: CURSOR,
    map: toSuppression,
    total: input.cursor ? undefined : () => countSuppressions(deps.db, projectId, search),
    idOf: (row) => row.email,
  });
}

/** The project of a request and, with a session, the member making it. */
export type Caller = ProjectContext & { userId?: string };

/** Who made a change, for the audit log: the member, or the secret key (no user). */
const actorOf = (caller: Caller) => ({ actorId: caller.via === 'session' ? (caller.userId ?? null) : null, via: caller.via === 'session' ? 'session' : 'secret_key' });

/**
 * POST /suppressions: the address is never sent to again and its contact, if any, is unsubscribed
 * (with contact.unsubscribed when it was subscribed). An address already listed keeps its entry;
 * `created` is false then (200 instead of 201).
 */
export async function addSuppression(deps: SuppressionDeps, project: Caller, input: { email: string; reason?: SuppressionReason }) {
  const reason = input.reason ?? 'MANUAL';
  return deps.db.transaction(async (tx) => {
    const row = await insertSuppression(tx, project.id, input.email, toStored(reason));
    if (row.created) {
      const unsubscribed = await unsubscribeForSuppression(tx, project.id, { emails: [input.email] });
      await recordEvents(
        tx,
        project.id,
        unsubscribed.map((contactId) => ({ contactId, name: 'contact.unsubscribed' })),
      );
      const { actorId, via } = actorOf(project);
      await recordAudit(tx, project.id, { actorId, action: 'suppression.added', details: { email: input.email, reason, via } });
    }
    return { suppression: toSuppression(row), created: row.created };
  });
}

/**
 * DELETE /suppressions/{email}: the address may be mailed again; its contact's subscription stays
 * as it is. A MEMBER may not: it undoes a bounce or a complaint (docs/decisions/suppressions.md).
 */
export async function removeSuppression(deps: SuppressionDeps, project: Caller, email: string): Promise<void> {
  if (project.via === 'session' && (!project.role || !MANAGERS.includes(project.role))) {
    throw forbidden('Only OWNER or ADMIN members can remove an address from the suppression list.');
  }
  await deps.db.transaction(async (tx) => {
    const removed = await deleteSuppression(tx, project.id, email);
    if (!removed) throw notFound('Suppression');
    const { actorId, via } = actorOf(project);
    await recordAudit(tx, project.id, { actorId, action: 'suppression.removed', details: { email, reason: toReason(removed.reason), via } });
  });
}
