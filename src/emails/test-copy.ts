import { findContactByEmail } from '../contacts/contacts.queries.ts';
import type { Deps } from '../deps.ts';
import { assertSenderAllowed, signingKeyFor } from '../domains/domains.service.ts';
import { toHeaderLine } from '../rendering/render.ts';
import { enqueueDelivery } from './email-queue.ts';
import { buildEmailRecord, type EmailRecordInput, writeEmailRecords } from './email-record.ts';
import { findSuppressed } from './emails.queries.ts';

export type TestCopy = {
  to: string;
  content: EmailRecordInput['content'];
  source: EmailRecordInput['source'];
  /** The contact whose data renders the copy (the one a preview shows); default: the contact with that address. */
  renderAs?: { id: string; email: string; data: Record<string, unknown> };
};

/**
 * One test copy (POST /templates/{id}/test, POST /campaigns/{id}/test; docs/decisions/campaigns.md): rendered now,
 * `[Test]` in the subject, through the same record and delivery queue as every send. It belongs to
 * no contact, so it moves no counter and emits no contact event; a contact with that address lends
 * its data to the rendering. A suppressed address gets a SUPPRESSED record, as any send would. An
 * unverified sender domain is the send's 403. Returns the record's id.
 */
export async function sendTestCopy(deps: Deps, projectId: string, copy: TestCopy): Promise<string> {
  const key = await signingKeyFor(deps.db, projectId, copy.content.from.email);
  if (!key) await assertSenderAllowed(deps.db, projectId, copy.content.from.email); // throws the 403
  const contact = copy.renderAs ?? (await findContactByEmail(deps.db, projectId, copy.to));
  return deps.db.transaction(async (tx) => {
    const made = buildEmailRecord(deps.config, {
      projectId,
      domainName: key!.domainName,
      content: copy.content,
      source: copy.source,
      to: { address: copy.to, name: null },
      contactId: null,
      renderFor: contact ? { id: contact.id, email: copy.renderAs?.email ?? copy.to, data: contact.data } : null,
      suppressed: (await findSuppressed(tx, projectId, [copy.to])).has(copy.to),
      subscribed: null,
      subject: (subject: string) => toHeaderLine(`[Test] ${subject}`),
    });
    await writeEmailRecords(tx, [made]);
    if (made.record.status === 'QUEUED') await enqueueDelivery(deps.queue, tx);
    return made.record.id;
  });
}
