import type { ConditionConfig } from '../step-configs.ts';

/** What a CONDITION step reads: the contact, the triggering event's data and the execution context. */
export type ConditionSubject = {
  contact: { email: string; subscribed: boolean; data: Record<string, unknown> };
  event: Record<string, unknown>;
  context: Record<string, unknown>;
};

/** A dotted path into an object (`data.address.city`); arrays by index. */
function lookup(root: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(root, path)) return root[path]; // keys that contain dots themselves
  let value: unknown = root;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** The value a CONDITION reads for a field (a dry run shows it). */
export function readField(subject: ConditionSubject, field: string): unknown {
  if (field === 'email') return subject.contact.email;
  if (field === 'subscribed') return subject.contact.subscribed;
  const dot = field.indexOf('.');
  const source = field.slice(0, dot);
  const path = field.slice(dot + 1);
  const root = source === 'data' ? subject.contact.data : source === 'event' ? subject.event : subject.context;
  return lookup(root ?? {}, path);
}

const isAbsent = (value: unknown) => value === undefined || value === null || value === '';

/** Orders two values of the same kind (numbers numerically, strings by code point); else undefined. */
function compare(actual: unknown, expected: unknown): number | undefined {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  // A number stored as text (CSV, forms) still compares with a numeric value.
  if (typeof expected === 'number' && typeof actual === 'string' && actual.trim() !== '' && Number.isFinite(Number(actual))) return Number(actual) - expected;
  if (typeof actual === 'string' && typeof expected === 'string') return actual < expected ? -1 : actual > expected ? 1 : 0;
  return undefined;
}

/**
 * Evaluates a CONDITION (docs/decisions/workflows.md with docs/decisions/segments.md's operators, docs/decisions/workflows.md): `null`
 * and '' count as absent; an absent value fails every test but notEquals, notContains and
 * notExists; `email` compares case-insensitively.
 */
export function evaluateCondition(config: ConditionConfig, subject: ConditionSubject): boolean {
  let actual = readField(subject, config.field);
  let expected = config.value;
  if (config.field === 'email' && typeof expected === 'string') {
    actual = String(actual).toLowerCase();
    expected = expected.toLowerCase();
  }
  switch (config.operator) {
    case 'exists':
      return !isAbsent(actual);
    case 'notExists':
      return isAbsent(actual);
    case 'equals':
      return !isAbsent(actual) && (compare(actual, expected) === 0 || actual === expected);
    case 'notEquals':
      return isAbsent(actual) || !(compare(actual, expected) === 0 || actual === expected);
    case 'contains':
      return typeof actual === 'string' && typeof expected === 'string' && actual.includes(expected);
    case 'notContains':
      return !(typeof actual === 'string' && typeof expected === 'string' && actual.includes(expected));
    case 'greaterThan':
      return (compare(actual, expected) ?? Number.NaN) > 0;
    case 'lessThan':
      return (compare(actual, expected) ?? Number.NaN) < 0;
    case 'greaterThanOrEqual':
      return (compare(actual, expected) ?? Number.NaN) >= 0;
    case 'lessThanOrEqual':
      return (compare(actual, expected) ?? Number.NaN) <= 0;
  }
}
