import type { ImportRow } from './contact-import.queries.ts';
import { emailField } from './contacts.schemas.ts';
import { type Primitive, splitContactData } from './data-rules.ts';

/** The CSV's shape (docs/decisions/contacts-and-events.md): where the email, the subscription and the data keys are among a file's columns. */
export type ColumnPlan = { width: number; email: number; subscribed: number | undefined; data: { index: number; key: string }[] };

/** Reads the header row; a string is why the file cannot be imported. */
export function planColumns(header: string[]): ColumnPlan | string {
  const names = header.map((name) => name.trim());
  const email = names.findIndex((name) => name.toLowerCase() === 'email');
  if (email < 0) return `The header row has no email column (found: ${names.slice(0, 20).join(', ') || 'nothing'}). Add a column named "email".`;
  const subscribedIndex = names.findIndex((name) => name.toLowerCase() === 'subscribed');
  const data = names
    .map((key, index) => ({ key, index }))
    // A second email or subscribed column (another case) is ignored like the reserved keys.
    .filter(({ key, index }) => key !== '' && index !== email && index !== subscribedIndex && !['email', 'subscribed'].includes(key.toLowerCase()));
  return { width: names.length, email, subscribed: subscribedIndex < 0 ? undefined : subscribedIndex, data };
}

const INTEGER = /^-?(0|[1-9]\d*)$/;
const DECIMAL = /^-?(0|[1-9]\d*)\.\d+$/;

/**
 * A cell's typed value: integers and decimals become numbers, true/false booleans, anything else
 * (ISO dates included) stays a string. Numbers with leading zeros (`007`, phone numbers) and
 * integers beyond 2^53 stay strings so no digit is lost.
 */
export function typeCell(cell: string): Primitive {
  if (INTEGER.test(cell)) return Number.isSafeInteger(Number(cell)) ? Number(cell) : cell;
  if (DECIMAL.test(cell)) return Number(cell);
  const lower = cell.toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  return cell;
}

const SUBSCRIBED_VALUES: Record<string, boolean> = { true: true, false: false, '1': true, '0': false, yes: true, no: false };

/** One data row as a contact to upsert, or the problem that makes it a bad row. */
export function toImportRow(fields: string[], plan: ColumnPlan): ImportRow | string {
  if (fields.length !== plan.width) return `The row has ${fields.length} columns; the header has ${plan.width}.`;
  const rawEmail = fields[plan.email]!;
  if (rawEmail === '') return 'The email cell is empty.';
  const email = emailField.safeParse(rawEmail);
  if (!email.success) return `Invalid email address: ${rawEmail.slice(0, 100)}`;
  let subscribed: boolean | null = null;
  if (plan.subscribed !== undefined && fields[plan.subscribed] !== '') {
    const value = SUBSCRIBED_VALUES[fields[plan.subscribed]!.toLowerCase()];
    if (value === undefined) return `subscribed must be true, false, 1, 0, yes or no; got "${fields[plan.subscribed]!.slice(0, 20)}".`;
    subscribed = value;
  }
  const data: Record<string, unknown> = {};
  // An empty cell is ignored (the API reference data rule 3): it keeps the stored value.
  for (const { index, key } of plan.data) if (fields[index] !== '') data[key] = typeCell(fields[index]!);
  return { email: email.data, subscribed, data: splitContactData(data, { oneOffAllowed: false }).set };
}
