import { assertBillingAllows } from '../billing/billing.guard.ts';
import { type UpsertedContact, upsertContactsByEmail } from '../contacts/contacts.queries.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { senderNotVerified, signingDomainsFor } from '../domains/domains.service.ts';
import { insertAttachments } from '../emails/email-record.queries.ts';
import { buildEmailRecord, type MadeRecord, writeEmailRecords } from '../emails/email-record.ts';
import { findSuppressedPairs } from '../emails/emails.queries.ts';
import type { AppError } from '../errors.ts';
import { type EventInput, subscriptionEventName } from '../events/events.service.ts';
import { MAX_MESSAGE_BYTES } from './send.schemas.ts';
import { invalid, type PreparedSend } from './send-content.ts';

export type SendResult = { emails: Array<{ contact: { id: string; email: string }; email: string }>; timestamp: string };
/** A written send: its answer, and how many of its records wait for delivery. */
export type WrittenSend = SendResult & { queued: number };

export { SUPPRESSION_REASONS } from '../emails/email-record.ts';

/** The contact keys of a send: two sends naming one contact never share a write (src/db/batcher.ts). */
export const sendKeys = (send: PreparedSend) => send.input.to.map((recipient) => `${send.projectId} ${recipient.email}`);

/**
 * POST /v1/send for several requests in one transaction (group commit, send-writer.ts); at most
 * one request per contact. Per request and recipient, in order: its contact upsert (new →
 * unsubscribed unless `subscribed` is given; a change emits the subscription event) and its own
 * rendered record. Suppressed addresses, and unsubscribed contacts of MARKETING mail, get a
 * SUPPRESSED record, an email.suppressed event, and no message.
 *
 * A request whose sender domain is not verified writes nothing and gets its 403 in its place.
 * Any other refusal (a message too large, the billing cap) fails the whole write; the writer then
 * retries each request alone, so only that request's caller sees it.
 */
export async function writeSends(deps: Deps, tx: Queryable, requests: PreparedSend[]): Promise<Array<WrittenSend | AppError>> {
  const domains = await signingDomainsFor(
    tx,
    requests.map((send) => ({ projectId: send.projectId, fromEmail: send.content.from.email })),
  );
  const sends = requests.flatMap((send, i) => (domains[i] ? [{ ...send, domainName: domains[i] }] : []));
  const written = await writeAllowed(deps, tx, sends);
  return requests.map((send, i) => (domains[i] ? written.shift()! : senderNotVerified(send.content.from.email)));
}

/** A send with the verified domain that signs it (docs/decisions/sending.md: the right side of the Message-ID). */
type AllowedSend = PreparedSend & { domainName: string };

async function writeAllowed(deps: Deps, tx: Queryable, sends: AllowedSend[]): Promise<WrittenSend[]> {
  if (sends.length === 0) return [];
  const contacts = await upsertRecipients(tx, sends, deps.config.databaseDistribution === 'citus');
  const suppressed = await findSuppressedPairs(
    tx,
    sends.flatMap((send) => send.input.to.map((recipient) => ({ projectId: send.projectId, email: recipient.email }))),
  );
  const queuedPerProject = new Map<string, number>();
  const written = sends.map((send, i) => {
    const made = makeRecords(deps, send, contacts[i]!, suppressed);
    queuedPerProject.set(send.projectId, (queuedPerProject.get(send.projectId) ?? 0) + made.queued.length);
    return { send, ...made };
  });
  // Projects in one order, so two writes that lock the same billing counters cannot deadlock.
  for (const projectId of [...queuedPerProject.keys()].sort()) {
    await assertBillingAllows(tx, projectId, 'TRANSACTIONAL', queuedPerProject.get(projectId)!);
  }
  await writeEmailRecords(
    tx,
    written.flatMap(({ records }) => records),
  );
  for (const { send, queued } of written) await insertAttachments(tx, send.projectId, queued, send.attachments.items);
  const timestamp = new Date().toISOString();
  return written.map(({ answer, queued }) => ({ emails: answer, timestamp, queued: queued.length }));
}

/**
 * Every recipient's contact, per send in `to` order. Sends are grouped by what their upsert binds
 * once (`subscribed`, the keys to unset); an address listed twice in one request is upserted once.
 */
async function upsertRecipients(tx: Queryable, sends: PreparedSend[], oneProject: boolean): Promise<UpsertedContact[][]> {
  const byContact = new Map<string, UpsertedContact>();
  const groups = new Map<string, PreparedSend[]>();
  // On Citus, one statement per project too (its row locks must name the project).
  for (const send of sends) append(groups, JSON.stringify([send.input.subscribed ?? null, send.changes.unset, oneProject ? send.projectId : null]), [send]);
  for (const group of groups.values()) {
    const rows = group.flatMap((send) => [...new Set(send.input.to.map((r) => r.email))].map((email) => ({ projectId: send.projectId, email, set: send.changes.set })));
    const shared = { subscribed: group[0]!.input.subscribed ?? null, subscribedWhenNew: false, unset: group[0]!.changes.unset };
    const upserted = await upsertContactsByEmail(tx, rows, shared, { oneProject });
    rows.forEach((row, i) => byContact.set(`${row.projectId} ${row.email}`, upserted[i]!));
  }
  return sends.map((send) => send.input.to.map((recipient) => byContact.get(`${send.projectId} ${recipient.email}`)!));
}

function append<T>(lists: Map<string, T[]>, key: string, items: T[]): void {
  const list = lists.get(key);
  if (list) list.push(...items);
  else lists.set(key, [...items]);
}

/**
 * The records of one send, each with its events (a contact's subscription change before its first
 * record's email.suppressed), its answer, and the ids of its records to deliver.
 */
function makeRecords(deps: Deps, send: AllowedSend, contacts: UpsertedContact[], suppressed: Set<string>) {
  const { projectId, input, content, template, changes, attachments } = send;
  const records: MadeRecord[] = [];
  const answer: SendResult['emails'] = [];
  const changed = new Set<string>();
  input.to.forEach((recipient, i) => {
    const contact = contacts[i]!;
    const events: EventInput[] = [];
    if (!contact.is_new && contact.was_subscribed !== null && contact.was_subscribed !== contact.subscribed && !changed.has(contact.id)) {
      changed.add(contact.id);
      events.push({ contactId: contact.id, name: subscriptionEventName(contact.subscribed) });
    }
    const { rendered, ...made } = buildEmailRecord(deps.config, {
      projectId,
      domainName: send.domainName,
      content: { ...content, headers: input.headers ?? {} },
      source: { type: 'TRANSACTIONAL', templateId: template?.id ?? null },
      to: { address: contact.email, name: recipient.name ?? null },
      contactId: contact.id,
      renderFor: { id: contact.id, email: contact.email, data: { ...contact.data, ...changes.oneOff } },
      suppressed: suppressed.has(`${projectId} ${contact.email}`),
      subscribed: contact.subscribed,
      submissionId: send.submissionId,
    });
    const messageBytes = Buffer.byteLength(rendered.html) + Buffer.byteLength(rendered.text) + Math.ceil((attachments.bytes * 4) / 3);
    if (messageBytes > MAX_MESSAGE_BYTES) {
      throw invalid([{ field: 'body', code: 'too_big', message: `The whole message may be at most ${MAX_MESSAGE_BYTES} bytes.` }]);
    }
    records.push({ ...made, events: [...events, ...made.events] });
    answer.push({ contact: { id: contact.id, email: contact.email }, email: made.record.id });
  });
  const queued = records.filter(({ record }) => record.status === 'QUEUED').map(({ record }) => record.id);
  return { records, answer, queued };
}
