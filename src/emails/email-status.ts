import { randomUUID } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { recordEvents } from '../events/events.service.ts';
import { suppressAddresses, unsubscribeForSuppression } from '../suppressions/suppressions.queries.ts';
import { failRequeuedOfCancelled, type HandingRef, type SettledEvent, type Settlement, writeHandOffs } from './email-status.queries.ts';
import type { EmailRow } from './emails.queries.ts';

/**
 * The delivery worker's transitions of an email record (docs/decisions/sending.md, "Hand-off states") and
 * the events they emit. The worker reports what the transport answered as a transition; this
 * module decides its events and writes it, with what a hard bounce does to the address and its
 * contact.
 */

/** A settlement and whether it announces a soft bounce (the record itself goes back to the queue). */
export type EmailTransition = Settlement & { softBounce?: boolean };

/**
 * One hand-off statement (email-status.queries.ts), the delivery worker's group commit (src/delivery/hand-off.ts); a statement with hard bounces also adds their
 * addresses to the suppression list and unsubscribes their contacts, in the same transaction.
 */
export async function writeTransitions(deps: Deps, marks: HandingRef[], settlements: Settlement[]): Promise<Set<string>> {
  const dispatch = deps.registry.events.length > 0;
  if (!settlements.some((s) => s.status === 'BOUNCED')) return (await writeHandOffs(deps.db, { marks, settlements, dispatch })).held;
  return deps.db.transaction(async (tx) => {
    const { held, settled } = await writeHandOffs(tx, { marks, settlements, dispatch });
    const bounced = settled.filter((row) => row.status === 'BOUNCED');
    for (const projectId of new Set(bounced.map((row) => row.project_id))) {
      const rows = bounced.filter((row) => row.project_id === projectId);
      // A hard bounce (docs/decisions/sending.md): the address joins the list, its contact is unsubscribed for good.
      await suppressAddresses(
        tx,
        rows.map((row) => ({ projectId, email: row.to_address, emailId: row.id })),
        'hard_bounce',
      );
      const contactIds = rows.flatMap((row) => (row.contact_id ? [row.contact_id] : []));
      const unsubscribed = await unsubscribeForSuppression(tx, projectId, { contactIds });
      await recordEvents(
        tx,
        projectId,
        unsubscribed.map((contactId) => ({ contactId, name: 'contact.unsubscribed' })),
      );
    }
    return held;
  });
}

/**
 * After a settlement is written: a campaign record the relay deferred (back in the queue for a real
 * attempt, not a refund) is failed instead when its campaign was cancelled meanwhile
 * (failRequeuedOfCancelled). Outside the hand-off statement, which runs one at a time and must not
 * wait on a cancel's lock. A failed check is logged: the record is then tried again as before.
 */
export async function afterSettled(deps: Pick<Deps, 'db' | 'log'>, row: EmailRow, settlement: EmailTransition): Promise<void> {
  if (settlement.status !== 'QUEUED' || settlement.refund || row.campaign_id === null) return;
  try {
    await failRequeuedOfCancelled(deps.db, { project_id: row.project_id, id: row.id, campaign_id: row.campaign_id });
  } catch (error) {
    deps.log.warn({ err: error, emailId: row.id }, 'could not check whether the campaign of a deferred record was cancelled; it will be tried again');
  }
}

/** docs/decisions/sending.md service events of a settlement, with `data.emailId` and the ids of what sent it. */
export function eventsOf(row: EmailRow, settlement: EmailTransition): SettledEvent[] {
  if (row.contact_id === null) return [];
  const contactId = row.contact_id;
  const data: Record<string, unknown> = { emailId: row.id };
  if (row.template_id) data.templateId = row.template_id;
  if (row.campaign_id) data.campaignId = row.campaign_id;
  if (row.workflow_id) data.workflowId = row.workflow_id;
  const event = (name: string, extra: Record<string, unknown> = {}): SettledEvent => ({ id: randomUUID(), contactId, name, data: { ...data, ...extra } });
  switch (settlement.status) {
    case 'DELIVERED':
      return [event('email.sent'), event('email.delivered')];
    case 'BOUNCED':
      return [event('email.bounced', { bounceType: 'hard', error: settlement.error })];
    case 'FAILED':
      return [event('email.failed', { error: settlement.error })];
    case 'QUEUED':
      return settlement.softBounce ? [event('email.bounced', { bounceType: 'soft', error: settlement.error })] : [];
  }
}
