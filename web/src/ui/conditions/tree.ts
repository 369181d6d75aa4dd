/**
 * The condition tree of segments and of a campaign's FILTERED audience, as docs/segments.md
 * describes it: groups combined by AND or OR, each group's filters (and its nested tree) ANDed.
 * This module only says which operators and value inputs fit a field; the server checks the tree.
 */
export type Logic = 'AND' | 'OR';
export type Unit = 'minutes' | 'hours' | 'days' | 'weeks';
export type Filter = { field: string; operator: string; value?: string | number | boolean; unit?: Unit };
export type Group = { filters: Filter[]; conditions?: Tree };
export type Tree = { logic: Logic; groups: Group[] };

/** The kind of a field, which decides its operators and value input. */
export type FieldKind = 'string' | 'number' | 'boolean' | 'date' | 'event' | 'segment';

export const UNITS: Unit[] = ['minutes', 'hours', 'days', 'weeks'];

export const OPERATOR_LABELS: Record<string, string> = {
  equals: 'is',
  notEquals: 'is not',
  contains: 'contains',
  notContains: 'does not contain',
  greaterThan: 'is more than',
  lessThan: 'is less than',
  greaterThanOrEqual: 'is at least',
  lessThanOrEqual: 'is at most',
  exists: 'has a value',
  notExists: 'has no value',
  within: 'is within the last',
  olderThan: 'is longer ago than',
  triggered: 'happened',
  notTriggered: 'never happened',
  triggeredWithin: 'happened within the last',
  notTriggeredWithin: 'did not happen within the last',
  triggeredOlderThan: 'last happened longer ago than',
  memberOfSegment: 'is a member',
  notMemberOfSegment: 'is not a member',
};

// Dates compare as before and after, not more and less.
const DATE_LABELS: Record<string, string> = { greaterThan: 'is after', lessThan: 'is before', greaterThanOrEqual: 'is on or after', lessThanOrEqual: 'is on or before' };

export const operatorLabel = (kind: FieldKind, operator: string) => (kind === 'date' && DATE_LABELS[operator]) || OPERATOR_LABELS[operator] || operator;

const COMPARE = ['equals', 'notEquals', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'];
const PRESENCE = ['exists', 'notExists'];
const TIME = ['within', 'olderThan'];
const EVENT = ['triggered', 'notTriggered', 'triggeredWithin', 'notTriggeredWithin', 'triggeredOlderThan'];

/** The operators a field accepts: the standard ones as the server defines them, custom data by its inferred type. */
export function operatorsFor(field: string, kind: FieldKind): string[] {
  if (field === 'email') return ['equals', 'notEquals', 'contains', 'notContains'];
  if (field === 'subscribed') return ['equals', 'notEquals'];
  if (field === 'createdAt' || field === 'updatedAt') return [...COMPARE, ...TIME];
  if (field.startsWith('event.') || field.startsWith('email.')) return EVENT;
  if (field.startsWith('segment.')) return ['memberOfSegment', 'notMemberOfSegment'];
  switch (kind) {
    case 'string':
      return ['equals', 'notEquals', 'contains', 'notContains', ...PRESENCE];
    case 'number':
      return [...COMPARE, ...PRESENCE];
    case 'boolean':
      return ['equals', 'notEquals', ...PRESENCE];
    case 'date':
      return [...COMPARE, ...TIME, ...PRESENCE];
    default:
      return ['equals', 'notEquals', ...PRESENCE];
  }
}

/** What the value input of an operator is: none, a number with a unit, or a value of the field's kind. */
export function valueInputOf(operator: string): 'none' | 'duration' | 'value' {
  if (['exists', 'notExists', 'triggered', 'notTriggered', 'memberOfSegment', 'notMemberOfSegment'].includes(operator)) return 'none';
  if (['within', 'olderThan', 'triggeredWithin', 'notTriggeredWithin', 'triggeredOlderThan'].includes(operator)) return 'duration';
  return 'value';
}

/** The filter after choosing `operator`: a value of the wrong shape is dropped, a duration gets days. */
export function withOperator(filter: Filter, operator: string): Filter {
  const input = valueInputOf(operator);
  const before = valueInputOf(filter.operator);
  if (input === 'none') return { field: filter.field, operator };
  if (input === 'duration') return { field: filter.field, operator, value: before === 'duration' ? filter.value : 7, unit: filter.unit ?? 'days' };
  return { field: filter.field, operator, ...(before === 'value' && filter.value !== undefined ? { value: filter.value } : {}) };
}

export const newFilter = (field = 'email'): Filter => ({ field, operator: field === 'email' ? 'contains' : 'equals', value: '' });
export const newTree = (): Tree => ({ logic: 'AND', groups: [{ filters: [newFilter()] }] });

/** The server's path of a bad filter (`groups.0.conditions.groups.1.filters.0.value`) without the part below the filter. */
export function filterPathOf(path: string): string | undefined {
  const match = /^(.*?filters\.\d+)(\.|$)/.exec(path);
  return match?.[1];
}
