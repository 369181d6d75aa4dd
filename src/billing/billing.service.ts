import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import { MANAGERS } from '../auth/auth.queries.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { requireRole } from '../projects/projects.service.ts';
import { findLimits, type Limits, monthConsumption, saveLimits } from './billing.queries.ts';

type BillingDeps = Pick<Deps, 'db'>;
const ANY_MEMBER = ['OWNER', 'ADMIN', 'MEMBER'] as const;

/** GET …/billing-limits: any member may read the caps. */
export async function getLimits(deps: BillingDeps, projectId: string, userId: string): Promise<Limits> {
  await requireRole(deps, projectId, userId, ANY_MEMBER, 'read billing limits');
  return findLimits(deps.db, projectId);
}

/** PUT …/billing-limits (OWNER or ADMIN): keys given are set (null: unlimited), others kept; audited. */
export async function putLimits(deps: BillingDeps, projectId: string, userId: string, changes: Partial<Limits>): Promise<Limits> {
  await requireRole(deps, projectId, userId, MANAGERS, 'change billing limits');
  return deps.db.transaction(async (tx) => {
    const before = await findLimits(tx, projectId);
    const after = await saveLimits(tx, projectId, changes);
    await recordAudit(tx, projectId, { actorId: userId, action: 'billing.limits_changed', details: { before, after } });
    return after;
  });
}

/** GET …/billing-consumption: this calendar month's (UTC) email records per category against the caps. */
export async function getConsumption(deps: BillingDeps, projectId: string, userId: string) {
  await requireRole(deps, projectId, userId, ANY_MEMBER, 'read billing consumption');
  const limits = await findLimits(deps.db, projectId);
  const { usage, start, end } = await monthConsumption(deps.db, projectId);
  const line = (used: number, limit: number | null) => ({ used, limit, remaining: limit === null ? null : Math.max(limit - used, 0) });
  return {
    periodStart: start.toISOString(),
    periodEnd: end.toISOString(),
    transactional: line(usage.get('TRANSACTIONAL') ?? 0, limits.transactional),
    campaigns: line(usage.get('CAMPAIGN') ?? 0, limits.campaigns),
    workflows: line(usage.get('WORKFLOW') ?? 0, limits.workflows),
  };
}

/** GET …/billing-invoices: no payment provider is built in, so there are none. */
export async function listInvoices(deps: BillingDeps, projectId: string, userId: string) {
  await requireRole(deps, projectId, userId, MANAGERS, 'read invoices');
  return { data: [] as never[] };
}

/** POST …/checkout and …/billing-portal: 501 until a payment provider adapter is configured. */
export async function noPaymentProvider(deps: BillingDeps, projectId: string, userId: string, what: string): Promise<never> {
  await requireRole(deps, projectId, userId, MANAGERS, 'manage billing');
  throw new AppError('NOT_IMPLEMENTED', {
    message: `No payment provider is configured on this server, so there is no ${what}.`,
    suggestion: 'Billing limits (PUT …/billing-limits) work without one.',
  });
}
