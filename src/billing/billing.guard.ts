import type { Queryable } from '../db/index.ts';
import { AppError } from '../errors.ts';
import { type BillingCategory, findLimit, findUsage, LIMIT_COLUMNS, seedUsage, takeUsage } from './billing.queries.ts';

export type { BillingCategory } from './billing.queries.ts';

/**
 * Refuses with 403 BILLING_LIMIT_EXCEEDED when `count` more email records of `category` would take
 * the project past its monthly cap (docs/decisions/billing.md), and otherwise counts them.
 *
 * Call it inside the transaction that creates the records, before they are inserted: the count
 * is taken on a per-project counter row that stays locked until that transaction ends, so two
 * concurrent sends cannot both take the last unit, and a refused or rolled-back send counts
 * nothing. With no cap set it is one primary-key read. `caps` keeps the caps read for the calls of
 * one transaction (read once per project and category, as if its records were one send).
 */
export async function assertBillingAllows(tx: Queryable, projectId: string, category: BillingCategory, count: number, caps?: Map<string, number | null>): Promise<void> {
  if (count <= 0) return;
  const key = `${projectId}:${category}`;
  let cap = caps?.get(key);
  if (cap === undefined) {
    cap = await findLimit(tx, projectId, category);
    caps?.set(key, cap);
  }
  if (cap === null) return;
  if ((await takeUsage(tx, projectId, category, count, cap)) !== undefined) return;
  let used = await findUsage(tx, projectId, category);
  if (used === undefined) {
    await seedUsage(tx, projectId, category);
    if ((await takeUsage(tx, projectId, category, count, cap)) !== undefined) return;
    used = (await findUsage(tx, projectId, category)) ?? 0;
  }
  const name = LIMIT_COLUMNS[category];
  throw new AppError('BILLING_LIMIT_EXCEEDED', {
    message: `This would exceed the project's monthly ${name} limit: ${used} of ${cap} used, ${count} more requested.`,
    details: { category: name, limit: cap, used, requested: count },
    suggestion: 'Raise or remove the limit (PUT /users/@me/projects/{id}/billing-limits), or wait for next month.',
  });
}
