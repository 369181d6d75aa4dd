import { type ConstraintErrors, retryOnDeadlock } from '../db/errors.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { AppError, flatBadRequest, notFound } from '../errors.ts';
import { recordEvents, subscriptionEventName } from '../events/events.service.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, isCursorTimestamp, MAX_PAGE_SIZE, type Page, pageOf } from '../pagination.ts';
import { contactPredicate, parseConditionText } from './contact-condition.ts';
import { ContactTotals } from './contact-totals.ts';
import { SNOOZE_END_JOB } from './contacts.jobs.ts';
import * as queries from './contacts.queries.ts';
import { type Contact, toContact } from './contacts.schemas.ts';
import { splitContactData } from './data-rules.ts';

/** the API reference (Contacts): PATCH /contacts/{id} with an email another contact has → 409 (wired in modules.ts). */
export const contactConstraintErrors: ConstraintErrors = {
  contacts_project_email_key: () => new AppError('EMAIL_IN_USE', { message: 'Another contact in this project has that email address.' }),
};

export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/**
 * Emits contact.subscribed / contact.unsubscribed when a write changed an existing contact's
 * `subscribed` (docs/decisions/contacts-and-events.md: creating a contact emits nothing), in the caller's transaction.
 */
export async function emitSubscriptionChange(tx: Queryable, _deps: Pick<Deps, 'queue'>, projectId: string, written: queries.WrittenContact): Promise<string | undefined> {
  const event = subscriptionEventOf(written);
  if (!event) return undefined;
  const [id] = await recordEvents(tx, projectId, [event]);
  return id;
}

/** The subscription event a write calls for: only when it changed an existing contact's `subscribed`. */
function subscriptionEventOf(written: queries.WrittenContact): { contactId: string; name: string } | undefined {
  if (written.is_new || written.was_subscribed === null || written.was_subscribed === written.subscribed) return undefined;
  return { contactId: written.id, name: subscriptionEventName(written.subscribed) };
}

/** emitSubscriptionChange for many written contacts (each with its `project_id`): one insert per project. */
export async function emitSubscriptionChanges(tx: Queryable, written: Array<queries.WrittenContact & { project_id: string }>): Promise<void> {
  const byProject = new Map<string, { contactId: string; name: string }[]>();
  for (const row of written) {
    const event = subscriptionEventOf(row);
    if (!event) continue;
    const events = byProject.get(row.project_id) ?? [];
    events.push(event);
    byProject.set(row.project_id, events);
  }
  for (const [projectId, events] of byProject) await recordEvents(tx, projectId, events);
}

export type CreateContactInput = { email?: string; subscribed?: boolean; data?: Record<string, unknown> };

/**
 * POST /contacts: upsert by email. A new contact is subscribed unless `subscribed: false` is
 * passed (the /v1/track default; docs/decisions/contacts-and-events.md).
 */
export async function upsertContact(deps: Deps, projectId: string, input: CreateContactInput): Promise<{ contact: Contact; isNew: boolean }> {
  if (input.email === undefined) throw flatBadRequest('email is required');
  const data = splitContactData(input.data, { oneOffAllowed: false });
  return deps.db.transaction(async (tx) => {
    const written = await queries.upsertContactByEmail(tx, projectId, {
      email: normaliseEmail(input.email!),
      subscribed: input.subscribed ?? null,
      subscribedWhenNew: true,
      data,
    });
    await emitSubscriptionChange(tx, deps, projectId, written);
    return { contact: toContact(written), isNew: written.is_new };
  });
}

export async function getContact(deps: Deps, projectId: string, id: string): Promise<Contact> {
  const row = await queries.findContact(deps.db, projectId, id);
  if (!row) throw notFound('Contact');
  return toContact(row);
}

export type UpdateContactInput = { email?: string; subscribed?: boolean; data?: Record<string, unknown>; snoozedUntil?: string | null };

/**
 * PATCH /contacts/{id}. Snooze (the API reference (Contact).snoozedUntil): a future `snoozedUntil` sets
 * subscribed false and schedules contacts.snooze-end at that time; `null` ends a running snooze now.
 */
export async function updateContact(deps: Deps, projectId: string, id: string, input: UpdateContactInput): Promise<Contact> {
  const data = splitContactData(input.data, { oneOffAllowed: false });
  if (typeof input.snoozedUntil === 'string' && input.subscribed === true) {
    throw new AppError('VALIDATION_ERROR', {
      errors: [{ field: 'subscribed', code: 'custom', message: 'A snoozed contact is unsubscribed until the snooze ends; do not pass subscribed: true with snoozedUntil.' }],
    });
  }
  const snooze = input.snoozedUntil === undefined ? null : input.snoozedUntil === null ? ({ mode: 'end' } as const) : ({ mode: 'snooze', until: input.snoozedUntil } as const);
  return deps.db.transaction(async (tx) => {
    const written = await queries.updateContact(tx, projectId, id, {
      email: input.email === undefined ? null : normaliseEmail(input.email),
      subscribed: input.subscribed ?? null,
      snooze,
      data,
    });
    if (!written) throw notFound('Contact');
    await emitSubscriptionChange(tx, deps, projectId, written);
    if (snooze?.mode === 'snooze') {
      await deps.queue.send(SNOOZE_END_JOB, { projectId, contactId: id }, { tx, startAfter: new Date(snooze.until) });
    }
    return toContact(written);
  });
}

export async function deleteContact(deps: Deps, projectId: string, id: string): Promise<void> {
  // The delete detaches the contact's records, which delivery may be updating at that moment.
  if (!(await retryOnDeadlock(() => queries.deleteContact(deps.db, projectId, id)))) throw notFound('Contact');
}

const totals = new ContactTotals();

export type ListContactsInput = { limit?: number; cursor?: string; search?: string; subscribed?: boolean; sort?: string; dir?: string; condition?: string };

/**
 * GET /contacts (the API reference (Conventions): cursor pagination; total on the first page only).
 * `condition` narrows the list to the contacts a condition tree selects, as GET /contacts/export
 * does (docs/decisions/contacts-and-events.md, "Filtering the list").
 */
export async function listContacts(deps: Deps, projectId: string, input: ListContactsInput): Promise<Page<Contact>> {
  const sort = input.sort === 'email' ? 'email' : 'createdAt';
  const dir = input.dir === 'asc' ? 'asc' : 'desc';
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const secret = deps.config.sessionSecret;
  const after = input.cursor ? decodeCursor(secret, input.cursor, { sort, dir, checkValue: sort === 'email' ? (value) => value.length <= 320 : isCursorTimestamp }) : undefined;
  const filters = { search: input.search || undefined, subscribed: input.subscribed };
  const selected = await contactPredicate(deps.db, projectId, parseConditionText(input.condition));
  const rows = await queries.listContacts(deps.db, projectId, { ...filters, selected, sort, dir, after, limit: limit + 1 });
  return pageOf(secret, rows, {
    limit,
    at: { sort, dir },
    map: toContact,
    // A filtered count is not shared: trees vary too much for the reuse of ContactTotals to help.
    total: input.cursor ? undefined : () => (selected ? queries.countContacts(deps.db, projectId, { ...filters, selected }) : totals.total(deps.db, projectId, filters)),
  });
}
