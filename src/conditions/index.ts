/**
 * The condition-tree compiler (contract §4): the public surface used by segments and campaigns.
 * compile.ts is the pure core (tree → SQL with bound values); resolve.ts adds segment references
 * from the database.
 */
export type { ConditionGroup, ConditionTree, Filter, Logic, Unit } from './types.ts';
export { ACTIVITY_OPERATORS, EMAIL_ACTIVITIES, UNITS, filtersOf, parseField, referencedSegments } from './types.ts';
export { type ConditionProblem, MAX_VALUE_LENGTH, validateConditionTree } from './validate.ts';
export { ConditionError, type CompileContext, type ResolvedSegment, compileCondition } from './compile.ts';
export { type CompileAudienceOptions, compileAudience, loadReferencedSegments, segmentMembership } from './resolve.ts';
export { checkedConditionTreeSchema, cleanConditionTree, conditionTreeSchema, pathSegments } from './schema.ts';
