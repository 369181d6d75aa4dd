import type { Deps } from '../deps.ts';
import { contactPredicate } from './contact-condition.ts';
import { type ContactSelection, selectedContactsAfter, selectedDataKeys } from './contact-export.queries.ts';
import type { ContactRow } from './contacts.schemas.ts';

const BATCH = 1000;

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function field(value: unknown): string {
  const text = value === null || value === undefined ? '' : value instanceof Date ? value.toISOString() : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/**
 * GET /contacts/export (docs/campaigns.md, "Contacts export"): the contacts a condition tree selects (all without
 * one) as CSV: email, subscribed, createdAt, updatedAt, then one column per data key. The tree is
 * checked and compiled before the first byte (a bad one is a 422 naming its filter); rows are read
 * by address in batches and written as they come, so any number of contacts streams in little memory.
 */
export async function exportContacts(deps: Deps, projectId: string, condition: unknown): Promise<AsyncGenerator<string>> {
  const params: unknown[] = [projectId];
  let predicate = 'c.project_id = $1';
  const selected = await contactPredicate(deps.db, projectId, condition);
  if (selected) predicate += ` AND (${selected(params)})`;
  const selection: ContactSelection = { predicate, params };
  const keys = await selectedDataKeys(deps.db, selection);
  return rows(deps, selection, keys);
}

async function* rows(deps: Deps, selection: ContactSelection, keys: string[]): AsyncGenerator<string> {
  yield `${['email', 'subscribed', 'createdAt', 'updatedAt', ...keys].map(field).join(',')}\r\n`;
  let after: string | null = null;
  for (;;) {
    const batch: ContactRow[] = await selectedContactsAfter(deps.db, selection, after, BATCH);
    if (batch.length === 0) return;
    yield batch.map((c) => `${[c.email, c.subscribed, iso(c.created_at), iso(c.updated_at), ...keys.map((k) => c.data?.[k])].map(field).join(',')}\r\n`).join('');
    if (batch.length < BATCH) return;
    after = batch.at(-1)!.email;
  }
}
