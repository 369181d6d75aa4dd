import { type FieldRef, LOGICS, operatorsFor, parseField, TIME_OPERATORS, UNITS, VALUELESS } from './types.ts';

/** The first thing wrong with a tree, at the path of the bad element (`groups[0].filters[1].operator`). */
export type ConditionProblem = { path: string; message: string };

/** Bounds that keep one audience one reasonable SQL statement. */
export const MAX_DEPTH = 5;
export const MAX_FILTERS = 100;
/** Longest string a filter compares with: a LIKE pattern or a text comparison stays cheap. */
export const MAX_VALUE_LENGTH = 1000;
/** Largest amount of units a time operator takes (100,000 weeks is ~1,900 years). */
export const MAX_AMOUNT = 100_000;

/** `YYYY-MM-DD`: equals covers that UTC day (docs/decisions/segments.md). */
export const DAY = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
// An ISO 8601 date-time with an optional offset (JavaScript's parser is lenient beyond ISO).
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export function isDayOrDateTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (DAY.test(value)) return !Number.isNaN(Date.parse(`${value}T00:00:00Z`));
  return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * Checks a condition tree against docs/decisions/segments.md: structure, known fields, operators valid for the
 * field, value and unit present and of the right type. Null when valid. Segment references are
 * only checked for form here; whether they exist (and are not circular) needs the database.
 */
export function validateConditionTree(tree: unknown): ConditionProblem | null {
  let filters = 0;

  const checkTree = (node: unknown, path: string, depth: number): ConditionProblem | null => {
    const at = (suffix: string) => (path ? `${path}.${suffix}` : suffix);
    if (!isObject(node)) return { path: path || 'condition', message: 'must be an object { logic, groups }' };
    if (depth > MAX_DEPTH) return { path: path || 'condition', message: `conditions may be nested at most ${MAX_DEPTH} levels deep` };
    if (!(LOGICS as readonly unknown[]).includes(node.logic)) return { path: at('logic'), message: 'must be AND or OR' };
    if (!Array.isArray(node.groups) || node.groups.length === 0) return { path: at('groups'), message: 'must be a non-empty array' };
    for (const [g, group] of node.groups.entries()) {
      const groupPath = at(`groups[${g}]`);
      if (!isObject(group)) return { path: groupPath, message: 'must be an object { filters, conditions? }' };
      if (group.filters !== undefined && !Array.isArray(group.filters)) return { path: `${groupPath}.filters`, message: 'must be an array' };
      const list: unknown[] = group.filters ?? [];
      if (list.length === 0 && group.conditions === undefined) return { path: `${groupPath}.filters`, message: 'a group needs at least one filter or a conditions' };
      for (const [f, filter] of list.entries()) {
        if (++filters > MAX_FILTERS) return { path: `${groupPath}.filters[${f}]`, message: `a condition may hold at most ${MAX_FILTERS} filters` };
        const problem = checkFilter(filter, `${groupPath}.filters[${f}]`);
        if (problem) return problem;
      }
      if (group.conditions !== undefined) {
        const problem = checkTree(group.conditions, `${groupPath}.conditions`, depth + 1);
        if (problem) return problem;
      }
    }
    return null;
  };

  return checkTree(tree, '', 1);
}

function checkFilter(filter: unknown, path: string): ConditionProblem | null {
  if (!isObject(filter)) return { path, message: 'must be an object { field, operator, value?, unit? }' };
  if (typeof filter.field !== 'string') return { path: `${path}.field`, message: 'is required (a string)' };
  const ref = parseField(filter.field);
  if (!ref) return { path: `${path}.field`, message: `unknown field "${filter.field}"` };
  if (typeof filter.operator !== 'string') return { path: `${path}.operator`, message: 'is required (a string)' };
  const allowed = operatorsFor(ref);
  if (!allowed.includes(filter.operator)) {
    return { path: `${path}.operator`, message: `"${filter.operator}" is not an operator of ${filter.field} (one of ${allowed.join(', ')})` };
  }
  if (filter.unit !== undefined && !(TIME_OPERATORS.has(filter.operator) && (UNITS as readonly unknown[]).includes(filter.unit))) {
    return {
      path: `${path}.unit`,
      message: TIME_OPERATORS.has(filter.operator) ? `must be one of ${UNITS.join(', ')}` : `is taken by time operators only, not ${filter.operator}`,
    };
  }
  if (typeof filter.value === 'string' && filter.value.length > MAX_VALUE_LENGTH) return { path: `${path}.value`, message: `must be at most ${MAX_VALUE_LENGTH} characters` };
  if (VALUELESS.has(filter.operator)) return null;
  if (filter.value === undefined || filter.value === null) return { path: `${path}.value`, message: `is required by ${filter.operator}` };
  if (TIME_OPERATORS.has(filter.operator)) {
    if (!(UNITS as readonly unknown[]).includes(filter.unit)) return { path: `${path}.unit`, message: `is required by ${filter.operator}: one of ${UNITS.join(', ')}` };
    if (!isFiniteNumber(filter.value) || filter.value <= 0 || filter.value > MAX_AMOUNT) {
      return { path: `${path}.value`, message: `must be a number of ${filter.unit} above 0 and at most ${MAX_AMOUNT}` };
    }
    return null;
  }
  const problem = checkValue(ref, filter.operator, filter.value);
  return problem ? { path: `${path}.value`, message: problem } : null;
}

/** The value rules of a non-time operator; a message when the value does not fit. */
function checkValue(ref: FieldRef, operator: string, value: unknown): string | null {
  switch (ref.kind) {
    case 'email':
      return typeof value === 'string' && value.length > 0 && value.length <= 254 ? null : `must be a non-empty string, got ${describe(value)}`;
    case 'subscribed':
      return typeof value === 'boolean' ? null : `must be a boolean, got ${describe(value)}`;
    case 'date':
      return isDayOrDateTime(value) ? null : 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time';
    case 'data':
      if (operator === 'contains' || operator === 'notContains') {
        return typeof value === 'string' && value.length > 0 ? null : `must be a non-empty string, got ${describe(value)}`;
      }
      if (operator === 'equals' || operator === 'notEquals') {
        return typeof value === 'string' || typeof value === 'boolean' || isFiniteNumber(value) ? null : `must be a string, number or boolean, got ${describe(value)}`;
      }
      return typeof value === 'string' || isFiniteNumber(value) ? null : `must be a number or a string, got ${describe(value)}`;
    case 'event':
    case 'segment':
      return null;
  }
}
