/**
 * The condition-tree compiler (docs/decisions/segments.md): the public surface used by segments and campaigns.
 * compile.ts is the pure core (tree → SQL with bound values); resolve.ts adds segment references
 * from the database.
 */

export { type CompileContext, ConditionError, compileCondition, narrowable, type ResolvedSegment } from './compile.ts';
export { type CompileAudienceOptions, compileAudience, compileCount, loadReferencedSegments, segmentMembership } from './resolve.ts';
export { checkedConditionTreeSchema, cleanConditionTree, conditionTreeSchema, pathSegments } from './schema.ts';
export type { ConditionGroup, ConditionTree, Filter, Logic, Unit } from './types.ts';
export { ACTIVITY_OPERATORS, EMAIL_ACTIVITIES, filtersOf, parseField, referencedSegments, UNITS } from './types.ts';
export { type ConditionProblem, MAX_VALUE_LENGTH, validateConditionTree } from './validate.ts';
