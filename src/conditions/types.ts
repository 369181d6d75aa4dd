/**
 * The condition tree of docs/decisions/segments.md (segment conditions, campaign audienceCondition): its shape,
 * and the tables of fields, operators and units that the validator and the compiler share.
 */

export type Logic = 'AND' | 'OR';
export type Filter = { field: string; operator: string; value?: unknown; unit?: string };
export type ConditionGroup = { filters: Filter[]; conditions?: ConditionTree };
export type ConditionTree = { logic: Logic; groups: ConditionGroup[] };

export const LOGICS = ['AND', 'OR'] as const;
export const UNITS = ['minutes', 'hours', 'days', 'weeks'] as const;
export type Unit = (typeof UNITS)[number];

/** docs/decisions/segments.md: the activities an `email.<activity>` filter can name. */
export const EMAIL_ACTIVITIES = ['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'] as const;

const COMPARISONS = ['greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'] as const;
const AGES = ['within', 'olderThan'] as const;
export const TEXT_OPERATORS = ['equals', 'notEquals', 'contains', 'notContains'] as const;
export const BOOLEAN_OPERATORS = ['equals', 'notEquals'] as const;
export const DATE_OPERATORS = ['equals', 'notEquals', ...COMPARISONS, ...AGES] as const;
export const DATA_OPERATORS = ['equals', 'notEquals', 'contains', 'notContains', ...COMPARISONS, 'exists', 'notExists', ...AGES] as const;
export const ACTIVITY_OPERATORS = ['triggered', 'notTriggered', 'triggeredWithin', 'notTriggeredWithin', 'triggeredOlderThan'] as const;
export const SEGMENT_OPERATORS = ['memberOfSegment', 'notMemberOfSegment'] as const;

export type TextOperator = (typeof TEXT_OPERATORS)[number];
export type DateOperator = (typeof DATE_OPERATORS)[number];
export type DataOperator = (typeof DATA_OPERATORS)[number];
export type ActivityOperator = (typeof ACTIVITY_OPERATORS)[number];
export type SegmentOperator = (typeof SEGMENT_OPERATORS)[number];

/** Operators that take no `value` (docs/decisions/segments.md). */
export const VALUELESS = new Set<string>(['exists', 'notExists', 'triggered', 'notTriggered', ...SEGMENT_OPERATORS]);
/** Operators whose value is an amount of `unit`s back from now. */
export const TIME_OPERATORS = new Set<string>([...AGES, 'triggeredWithin', 'notTriggeredWithin', 'triggeredOlderThan']);

/**
 * A filter's `field`, parsed. Every field the compiler accepts is one of these kinds; anything
 * else is refused by the validator (the allowlist of ).
 */
export type FieldRef =
  | { kind: 'email' }
  | { kind: 'subscribed' }
  | { kind: 'date'; column: 'created_at' | 'updated_at' }
  | { kind: 'data'; key: string }
  | { kind: 'event'; name: string }
  | { kind: 'segment'; segmentId: string };

/** Longest data key or event name a filter may name (event names are 1–200 characters). */
export const MAX_NAME_LENGTH = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `field` → its kind, or null when it is not a field of docs/decisions/segments.md. */
export function parseField(field: string): FieldRef | null {
  if (field === 'email') return { kind: 'email' };
  if (field === 'subscribed') return { kind: 'subscribed' };
  if (field === 'createdAt') return { kind: 'date', column: 'created_at' };
  if (field === 'updatedAt') return { kind: 'date', column: 'updated_at' };
  const dot = field.indexOf('.');
  if (dot < 0) return null;
  const prefix = field.slice(0, dot);
  const rest = field.slice(dot + 1);
  if (!rest || rest.length > MAX_NAME_LENGTH) return null;
  switch (prefix) {
    case 'data':
      return { kind: 'data', key: rest };
    case 'event':
      return { kind: 'event', name: rest };
    case 'email':
      // Email activity is recorded as the `email.<activity>` events of the delivery pipeline.
      return (EMAIL_ACTIVITIES as readonly string[]).includes(rest) ? { kind: 'event', name: field } : null;
    case 'segment':
      return UUID.test(rest) ? { kind: 'segment', segmentId: rest.toLowerCase() } : null;
    default:
      return null;
  }
}

/** The operators a field kind accepts. */
export function operatorsFor(ref: FieldRef): readonly string[] {
  switch (ref.kind) {
    case 'email':
      return TEXT_OPERATORS;
    case 'subscribed':
      return BOOLEAN_OPERATORS;
    case 'date':
      return DATE_OPERATORS;
    case 'data':
      return DATA_OPERATORS;
    case 'event':
      return ACTIVITY_OPERATORS;
    case 'segment':
      return SEGMENT_OPERATORS;
  }
}

/** Every segment id a tree references (`segment.<id>` filters), nested conditions included. */
export function referencedSegments(tree: ConditionTree): string[] {
  const ids = new Set<string>();
  const walk = (node: ConditionTree) => {
    for (const group of node.groups) {
      for (const filter of group.filters ?? []) {
        const ref = parseField(filter.field);
        if (ref?.kind === 'segment') ids.add(ref.segmentId);
      }
      if (group.conditions) walk(group.conditions);
    }
  };
  walk(tree);
  return [...ids];
}

/** Every filter of a tree with its path (`groups[0].filters[1]`), nested conditions included. */
export function* filtersOf(tree: ConditionTree, path = ''): Generator<{ filter: Filter; path: string }> {
  for (const [g, group] of tree.groups.entries()) {
    const groupPath = `${path}groups[${g}]`;
    for (const [f, filter] of (group.filters ?? []).entries()) yield { filter, path: `${groupPath}.filters[${f}]` };
    if (group.conditions) yield* filtersOf(group.conditions, `${groupPath}.conditions.`);
  }
}
