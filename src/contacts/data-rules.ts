import { AppError, type FieldError } from '../errors.ts';

/** the API reference (Contact) data write rule 5: silently dropped. */
export const RESERVED_DATA_KEYS = new Set(['id', 'svc_id', 'svc_email', 'email', 'unsubscribeUrl', 'subscribeUrl', 'manageUrl']);

export type Primitive = string | number | boolean;

/** What a request's `data` does to a contact, split by the write rules of the API reference. */
export type DataChanges = {
  /** Rule 1: primitives stored on the contact. */
  set: Record<string, Primitive>;
  /** Rule 2: keys that `null` deletes. */
  unset: string[];
  /** Rule 4: `{ value, persistent: false }` values, for this request's rendering only. */
  oneOff: Record<string, unknown>;
};

export const NO_DATA_CHANGES: DataChanges = Object.freeze({ set: {}, unset: [], oneOff: {} }) as DataChanges;

const isPrimitive = (value: unknown): value is Primitive => typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

/**
 * Applies the contact data write rules 1–5 (the API reference) to a request's `data`, in the one place every
 * writer (create, update, send, track, import, workflows) uses.
 * - `oneOffAllowed`: rule 4 applies on send and track only; elsewhere such an object is refused.
 * Values that are neither primitive, null, nor a one-off object are refused with 422 naming the key.
 */
export function splitContactData(data: Record<string, unknown> | undefined | null, options: { oneOffAllowed: boolean }): DataChanges {
  if (!data) return NO_DATA_CHANGES;
  const changes: DataChanges = { set: {}, unset: [], oneOff: {} };
  const problems: FieldError[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (RESERVED_DATA_KEYS.has(key)) continue; // rule 5
    if (value === null)
      changes.unset.push(key); // rule 2
    else if (value === '')
      continue; // rule 3
    else if (isPrimitive(value))
      changes.set[key] = value; // rule 1
    else if (isOneOff(value)) {
      if (options.oneOffAllowed)
        changes.oneOff[key] = value.value; // rule 4
      else problems.push({ field: `data.${key}`, code: 'invalid_type', message: 'One-off values ({ value, persistent: false }) are accepted on send and track only.' });
    } else {
      problems.push({
        field: `data.${key}`,
        code: 'invalid_type',
        message: 'Contact data values must be a string, number, boolean or null.',
        received: Array.isArray(value) ? 'array' : typeof value,
      });
    }
  }
  if (problems.length) throw new AppError('VALIDATION_ERROR', { errors: problems });
  return changes;
}

function isOneOff(value: unknown): value is { value: unknown; persistent: false } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && 'value' in value && (value as { persistent?: unknown }).persistent === false;
}

/** True when the changes write nothing to the stored contact. */
export const changesNothing = (changes: DataChanges) => Object.keys(changes.set).length === 0 && changes.unset.length === 0;
