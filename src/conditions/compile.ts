import { AppError } from '../errors.ts';
import {
  type ActivityOperator,
  type ConditionTree,
  type DataOperator,
  type DateOperator,
  type Filter,
  filtersOf,
  parseField,
  type SegmentOperator,
  type TextOperator,
  type Unit,
} from './types.ts';
import { DAY, validateConditionTree } from './validate.ts';

/**
 * The pure core of the condition compiler (docs/decisions/segments.md ): a tree → one SQL boolean
 * expression over `contacts c`. Every value — data keys and event names included — is appended to
 * `params` and referenced as `$n` with an explicit cast; the SQL text holds only fixed fragments
 * chosen by exhaustive switches. It reads no database: segment references come pre-resolved.
 */

/** A segment a tree references, as the compiler needs it. */
export type ResolvedSegment = { type: 'DYNAMIC'; condition: ConditionTree } | { type: 'STATIC' };

export type CompileContext = {
  projectId: string;
  /** Values are appended here; `$n` is a value's 1-based position. */
  params: unknown[];
  /** Every segment reachable from the tree (directly or through other dynamic segments). */
  segments: ReadonlyMap<string, ResolvedSegment>;
  /** Segments already being expanded, outermost first: referencing one again is circular. */
  stack?: readonly string[];
  /**
   * Compile over the narrow copy (`contact_slots c`) instead of `contacts c`: each data key's slot.
   * The caller has checked that every field of the tree (and of the segments it reaches) has one
   * (`narrowable`); see docs/decisions/segments.md, "The narrow copy".
   */
  slots?: ReadonlyMap<string, number>;
};

/** A tree that cannot be compiled: 400 BAD_REQUEST, naming the path of the bad filter. */
export class ConditionError extends AppError {
  readonly path: string;
  readonly reason: string;
  constructor(path: string, reason: string) {
    super('BAD_REQUEST', { message: `Invalid condition at ${path}: ${reason}`, details: { path } });
    this.path = path;
    this.reason = reason;
  }
}

type Cast = 'text' | 'jsonb' | 'jsonpath' | 'boolean' | 'timestamptz' | 'uuid' | 'double precision' | 'numeric';

/** Appends values to the shared params array; the project id only once, and only when used. */
class Binder {
  private projectRef?: string;
  constructor(
    private readonly params: unknown[],
    private readonly projectId: string,
  ) {}

  bind(value: unknown, cast: Cast): string {
    this.params.push(value);
    return `$${this.params.length}::${cast}`;
  }

  project(): string {
    this.projectRef ??= this.bind(this.projectId, 'uuid');
    return this.projectRef;
  }
}

// Fixed SQL for each unit; the amount is a bound parameter.
const UNIT_INTERVAL: Record<Unit, string> = {
  minutes: "interval '1 minute'",
  hours: "interval '1 hour'",
  days: "interval '1 day'",
  weeks: "interval '1 week'",
};

/** Compiles a tree (validated or not: an invalid one throws ConditionError) into a predicate. */
export function compileCondition(tree: ConditionTree, context: CompileContext): string {
  const problem = validateConditionTree(tree);
  if (problem) throw new ConditionError(problem.path, problem.message);
  const binder = new Binder(context.params, context.projectId);
  return compileTree(tree, '', { ...context, stack: context.stack ?? [] }, binder);
}

type State = CompileContext & { stack: readonly string[] };

/**
 * What a test costs per contact, cheapest first: the order a group's tests are written in, which
 * PostgreSQL keeps among tests of equal estimated cost (docs/decisions/segments.md, "Performance").
 * A column comparison, then one containment of the group's `data` equalities, then the other
 * `data` tests (a jsonpath costs several containments), then nested trees and subqueries.
 */
const COST = { column: 0, containment: 1, data: 2, tree: 3, subquery: 4 } as const;
type Part = { sql: string; cost: number };

function compileTree(tree: ConditionTree, path: string, state: State, binder: Binder): string {
  const groups = tree.groups.map((group, g) => {
    const groupPath = `${path}groups[${g}]`;
    const parts = compileGroupFilters(group.filters ?? [], groupPath, state, binder);
    if (group.conditions) parts.push({ sql: compileTree(group.conditions, `${groupPath}.conditions.`, state, binder), cost: COST.tree });
    // A stable sort: tests of one cost keep the order the builder gave them.
    const ordered = parts.map((part, i) => ({ ...part, i })).sort((a, b) => a.cost - b.cost || a.i - b.i);
    return ordered.length === 1 ? ordered[0]!.sql : `(${ordered.map((part) => part.sql).join(' AND ')})`;
  });
  const joiner = tree.logic === 'OR' ? ' OR ' : ' AND ';
  return groups.length === 1 ? groups[0] : `(${groups.join(joiner)})`;
}

/**
 * A group's filters (all of which must hold). The `data.<key> equals` filters on distinct keys
 * are one containment, `c.data @> {"k1": v1, "k2": v2}`, which holds exactly when each
 * `c.data @> {"k": v}` does: one test of the row instead of one per filter, estimated as a whole
 * from the column's statistics (docs/decisions/segments.md, "Performance"). A key named twice
 * keeps its second test apart. It is bound where the first of them stands.
 */
function compileGroupFilters(filters: Filter[], groupPath: string, state: State, binder: Binder): Part[] {
  // A Map, then Object.fromEntries: a key such as `__proto__` stays an own key of the object.
  const equal = new Map<string, unknown>();
  const merged = new Set<number>();
  filters.forEach((filter, f) => {
    const ref = parseField(filter.field);
    if (!state.slots && ref?.kind === 'data' && filter.operator === 'equals' && !equal.has(ref.key)) {
      equal.set(ref.key, filter.value);
      merged.add(f);
    }
  });
  const first = Math.min(...merged);
  const parts: Part[] = [];
  filters.forEach((filter, f) => {
    if (!merged.has(f)) parts.push(compileFilter(filter, `${groupPath}.filters[${f}]`, state, binder));
    else if (f === first) parts.push({ sql: `c.data @> ${binder.bind(JSON.stringify(Object.fromEntries(equal)), 'jsonb')}`, cost: COST.containment });
  });
  return parts;
}

function compileFilter(filter: Filter, path: string, state: State, binder: Binder): Part {
  const ref = parseField(filter.field);
  if (!ref) throw new ConditionError(`${path}.field`, `unknown field "${filter.field}"`);
  switch (ref.kind) {
    case 'email':
      if (state.slots) throw new Error('the narrow copy holds no email (narrowable)');
      return { sql: emailPredicate(filter.operator as TextOperator, String(filter.value).toLowerCase(), binder), cost: COST.column };
    case 'subscribed': {
      const value = binder.bind(filter.value, 'boolean');
      return { sql: filter.operator === 'equals' ? `c.subscribed = ${value}` : `c.subscribed <> ${value}`, cost: COST.column };
    }
    case 'date':
      if (state.slots && ref.column !== 'created_at') throw new Error(`the narrow copy holds no ${ref.column} (narrowable)`);
      return { sql: datePredicate(`c.${ref.column}`, filter, binder), cost: COST.column };
    case 'data':
      if (state.slots) return slotPart(ref.key, filter, state.slots, binder);
      return { sql: dataPredicate(ref.key, filter, binder), cost: filter.operator === 'equals' || filter.operator === 'notEquals' ? COST.containment : COST.data };
    case 'event':
      return { sql: activityPredicate(ref.name, filter, binder), cost: COST.subquery };
    case 'segment': {
      const sql = segmentPredicate(ref.segmentId, filter.operator as SegmentOperator, path, state, binder);
      return { sql, cost: state.segments.get(ref.segmentId)?.type === 'STATIC' ? COST.subquery : COST.tree };
    }
  }
}

// Emails are stored lower-cased, so binding the lower-cased value makes every test case-insensitive.
function emailPredicate(operator: TextOperator, value: string, binder: Binder): string {
  const bound = binder.bind(value, 'text');
  switch (operator) {
    case 'equals':
      return `c.email = ${bound}`;
    case 'notEquals':
      return `c.email <> ${bound}`;
    case 'contains':
      return `strpos(c.email, ${bound}) > 0`;
    case 'notContains':
      return `strpos(c.email, ${bound}) = 0`;
  }
}

/** `now()` minus the filter's amount of units. */
function cutoff(filter: Filter, binder: Binder): string {
  return `(now() - ${binder.bind(filter.value, 'double precision')} * ${UNIT_INTERVAL[filter.unit as Unit]})`;
}

/**
 * createdAt / updatedAt. A `YYYY-MM-DD` value stands for that whole UTC day: equals is "during the
 * day", greaterThan "after it", lessThanOrEqual "up to its end" (docs/decisions/segments.md).
 */
function datePredicate(column: string, filter: Filter, binder: Binder): string {
  const operator = filter.operator as DateOperator;
  if (operator === 'within') return `${column} >= ${cutoff(filter, binder)}`;
  if (operator === 'olderThan') return `${column} < ${cutoff(filter, binder)}`;
  const value = String(filter.value);
  if (DAY.test(value)) {
    const start = new Date(`${value}T00:00:00.000Z`);
    const end = new Date(start.getTime() + 86_400_000);
    const from = () => binder.bind(start.toISOString(), 'timestamptz');
    const to = () => binder.bind(end.toISOString(), 'timestamptz');
    switch (operator) {
      case 'equals':
        return `(${column} >= ${from()} AND ${column} < ${to()})`;
      case 'notEquals':
        return `(${column} < ${from()} OR ${column} >= ${to()})`;
      case 'greaterThan':
        return `${column} >= ${to()}`;
      case 'greaterThanOrEqual':
        return `${column} >= ${from()}`;
      case 'lessThan':
        return `${column} < ${from()}`;
      case 'lessThanOrEqual':
        return `${column} < ${to()}`;
    }
  }
  const instant = binder.bind(new Date(value).toISOString(), 'timestamptz');
  switch (operator) {
    case 'equals':
      return `${column} = ${instant}`;
    case 'notEquals':
      return `${column} <> ${instant}`;
    case 'greaterThan':
      return `${column} > ${instant}`;
    case 'greaterThanOrEqual':
      return `${column} >= ${instant}`;
    case 'lessThan':
      return `${column} < ${instant}`;
    case 'lessThanOrEqual':
      return `${column} <= ${instant}`;
  }
}

const COMPARE: Record<'greaterThan' | 'lessThan' | 'greaterThanOrEqual' | 'lessThanOrEqual', string> = {
  greaterThan: '>',
  lessThan: '<',
  greaterThanOrEqual: '>=',
  lessThanOrEqual: '<=',
};

/**
 * A strict SQL/JSON path testing one data key: `strict $."key" ? (<test>)`. Key and value are JSON
 * string literals (JSON.stringify escapes them the way jsonpath reads them), and the whole path is
 * one bound parameter. Strict mode: an array value is not unwrapped, a missing key matches nothing.
 */
const keyPath = (key: string, test: string) => `strict $.${JSON.stringify(key)} ? (${test})`;

/**
 * `data.<key>` (docs/decisions/segments.md): numbers compare numerically, strings as strings (by code point),
 * booleans by equality; JSON null counts as absent. The key is never SQL text: it is bound, alone
 * (`c.data ? $n::text`) or inside a bound jsonb / jsonpath value. Equality is containment of
 * `{ key: value }` and comparisons are `@?` jsonpath tests: both are estimated from the column's
 * statistics, so the planner sizes a data-filtered audience right (docs/decisions/segments.md).
 * Negations (notEquals, notContains, notExists) match contacts without the key.
 */
function dataPredicate(key: string, filter: Filter, binder: Binder): string {
  const operator = filter.operator as DataOperator;
  const path = (test: string) => binder.bind(keyPath(key, test), 'jsonpath');
  switch (operator) {
    case 'exists':
    case 'notExists': {
      const k = binder.bind(key, 'text');
      const present = `(c.data ? ${k} AND jsonb_typeof(c.data -> ${k}) <> 'null')`;
      return operator === 'exists' ? present : `NOT ${present}`;
    }
    case 'equals':
      return `c.data @> ${binder.bind(JSON.stringify({ [key]: filter.value }), 'jsonb')}`;
    case 'notEquals':
      return `NOT (c.data @> ${binder.bind(JSON.stringify({ [key]: filter.value }), 'jsonb')})`;
    // A case-insensitive substring: like_regex with the `q` flag takes the value literally. A value
    // that is not a string never contains anything.
    case 'contains':
      return `c.data @? ${path(`@ like_regex ${JSON.stringify(filter.value)} flag "iq"`)}`;
    case 'notContains':
      return `(c.data @? ${path(`@ like_regex ${JSON.stringify(filter.value)} flag "iq"`)}) IS NOT TRUE`;
    // jsonpath compares a number with numbers and a string with strings; other types never match.
    case 'greaterThan':
    case 'lessThan':
    case 'greaterThanOrEqual':
    case 'lessThanOrEqual':
      return `c.data @? ${path(`@ ${COMPARE[operator]} ${JSON.stringify(filter.value)}`)}`;
    case 'within':
    case 'olderThan': {
      // A stored date string; anything that does not parse as a date matches neither operator.
      const k = binder.bind(key, 'text');
      const compare = operator === 'within' ? '>=' : '<';
      return `coalesce(jsonb_typeof(c.data -> ${k}) = 'string' AND mailroom_try_timestamptz(c.data ->> ${k}) ${compare} ${cutoff(filter, binder)}, false)`;
    }
  }
}

/** The fields a slot-compiled tree may name besides its slotted data keys. */
const NARROW_FIELDS = new Set(['subscribed', 'createdAt']);

/**
 * True when the narrow copy answers the tree: every field of it, and of every dynamic segment it
 * reaches, is a slotted data key, `subscribed`, `createdAt`, an event or a segment. A tree naming
 * `email` or `updatedAt`, or a key without a ready slot, is compiled over `contacts`.
 */
export function narrowable(tree: ConditionTree, segments: ReadonlyMap<string, ResolvedSegment>, slots: ReadonlyMap<string, number>): boolean {
  const trees = [tree, ...[...segments.values()].flatMap((segment) => (segment.type === 'DYNAMIC' ? [segment.condition] : []))];
  return trees.every((one) =>
    [...filtersOf(one)].every(({ filter }) => {
      const ref = parseField(filter.field);
      if (!ref) return true; // the compiler reports it
      switch (ref.kind) {
        case 'data':
          return slots.has(ref.key);
        case 'event':
        case 'segment':
          return true;
        default:
          return NARROW_FIELDS.has(filter.field);
      }
    }),
  );
}

/**
 * `data.<key>` over the narrow copy: slot i holds the key's string in `t<i>`, its number in `n<i>`
 * and its JSON kind in `k<i>` (NULL when absent or JSON null), so each test mirrors the jsonb one of
 * `dataPredicate`: JSON equality by type (numbers numerically), strings ordered by code point
 * (`COLLATE "C"`), `contains` the same literal case-insensitive regular expression as the
 * jsonpath's `like_regex … flag "iq"` (`***=` quotes the rest), negations true when absent.
 */
function slotPart(key: string, filter: Filter, slots: ReadonlyMap<string, number>, binder: Binder): Part {
  const slot = slots.get(key);
  if (slot === undefined) throw new Error(`no slot for data key ${JSON.stringify(key)} (narrowable)`);
  const [t, n, k] = [`c.t${slot}`, `c.n${slot}`, `c.k${slot}`];
  const operator = filter.operator as DataOperator;
  const equal = (): string => {
    switch (typeof filter.value) {
      case 'number':
        return `${n} = ${binder.bind(filter.value, 'numeric')}`;
      case 'boolean':
        return filter.value ? `${k} = 't'` : `${k} = 'f'`;
      default:
        return `${t} = ${binder.bind(String(filter.value), 'text')}`;
    }
  };
  const like = () => `${t} ~* ('***=' || ${binder.bind(String(filter.value), 'text')})`;
  switch (operator) {
    case 'exists':
      return { sql: `${k} IS NOT NULL`, cost: COST.column };
    case 'notExists':
      return { sql: `${k} IS NULL`, cost: COST.column };
    case 'equals':
      return { sql: equal(), cost: COST.column };
    case 'notEquals':
      return { sql: `(${equal()}) IS NOT TRUE`, cost: COST.column };
    case 'contains':
      return { sql: like(), cost: COST.data };
    case 'notContains':
      return { sql: `(${like()}) IS NOT TRUE`, cost: COST.data };
    case 'greaterThan':
    case 'lessThan':
    case 'greaterThanOrEqual':
    case 'lessThanOrEqual': {
      const sql =
        typeof filter.value === 'number'
          ? `${n} ${COMPARE[operator]} ${binder.bind(filter.value, 'numeric')}`
          : `${t} ${COMPARE[operator]} ${binder.bind(String(filter.value), 'text')} COLLATE "C"`;
      return { sql, cost: COST.column };
    }
    case 'within':
    case 'olderThan': {
      const compare = operator === 'within' ? '>=' : '<';
      return { sql: `coalesce(mailroom_try_timestamptz(${t}) ${compare} ${cutoff(filter, binder)}, false)`, cost: COST.data };
    }
  }
}

/**
 * `event.<name>` and `email.<activity>` (stored as `email.<activity>` events): EXISTS over the
 * contact's events of that name. Under AND the planner turns it into a semi-join (anti-join for
 * NOT EXISTS) driven by events (project_id, name, created_at); see docs/decisions/segments.md.
 */
function activityPredicate(name: string, filter: Filter, binder: Binder): string {
  // Bound in reading order, so $n grow from left to right.
  const events = (window?: '>=' | '<') => {
    const head = `EXISTS (SELECT 1 FROM events e WHERE e.project_id = ${binder.project()} AND e.name = ${binder.bind(name, 'text')} AND e.contact_id = c.id`;
    return window ? `${head} AND e.created_at ${window} ${cutoff(filter, binder)})` : `${head})`;
  };
  const operator = filter.operator as ActivityOperator;
  switch (operator) {
    case 'triggered':
      return events();
    case 'notTriggered':
      return `NOT ${events()}`;
    case 'triggeredWithin':
      return events('>=');
    case 'notTriggeredWithin':
      return `NOT ${events('>=')}`;
    case 'triggeredOlderThan':
      return events('<');
  }
}

/**
 * `segment.<id>`: a dynamic segment's own condition, compiled in place (so membership is always
 * live); a static segment's stored members. A segment met again while it is being expanded is a
 * circular reference.
 */
function segmentPredicate(segmentId: string, operator: SegmentOperator, path: string, state: State, binder: Binder): string {
  if (state.stack.includes(segmentId)) {
    throw new ConditionError(`${path}.field`, `segment ${segmentId} refers back to itself (circular reference)`);
  }
  const segment = state.segments.get(segmentId);
  if (!segment) throw new ConditionError(`${path}.field`, `segment ${segmentId} does not exist in this project`);
  let member: string;
  switch (segment.type) {
    case 'DYNAMIC': {
      const inner = { ...state, stack: [...state.stack, segmentId] };
      try {
        const problem = validateConditionTree(segment.condition);
        if (problem) throw new ConditionError(problem.path, problem.message);
        member = `(${compileTree(segment.condition, '', inner, binder)})`;
      } catch (error) {
        if (error instanceof ConditionError) throw new ConditionError(`${path}.field`, `segment ${segmentId}: ${error.reason}`);
        throw error;
      }
      break;
    }
    case 'STATIC':
      member = `EXISTS (SELECT 1 FROM segment_members m WHERE m.project_id = ${binder.project()} AND m.segment_id = ${binder.bind(segmentId, 'uuid')} AND m.contact_id = c.id)`;
      break;
  }
  return operator === 'memberOfSegment' ? member : `(${member} IS NOT TRUE)`;
}
