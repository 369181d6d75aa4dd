import { ConditionError, type ConditionTree, compileCondition, loadReferencedSegments, pathSegments, validateConditionTree } from '../conditions/index.ts';
import type { Queryable } from '../db/index.ts';
import { AppError } from '../errors.ts';

/** A SQL boolean over `contacts c` for a condition tree; its values are appended to `params`. */
export type ContactPredicate = (params: unknown[]) => string;

function conditionError(path: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', { errors: [{ field: ['condition', ...pathSegments(path)].join('.'), code: 'custom', message }] });
}

/** The `condition` query parameter of GET /contacts and /contacts/export: a condition tree as JSON text. */
export function parseConditionText(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError('VALIDATION_ERROR', { errors: [{ field: 'condition', code: 'invalid_string', message: 'condition is not JSON text.' }] });
  }
}

/**
 * Checks a condition tree over contacts (the segment builder's, docs/decisions/segments.md) and
 * resolves the segments it names, before any row is read: a bad tree, an unknown segment or a
 * circular reference is a 422 naming its filter (`condition.groups.0.filters.1.value`). Returns
 * a compiler that binds its values after the caller's own.
 */
export async function contactPredicate(db: Queryable, projectId: string, condition: unknown): Promise<ContactPredicate | undefined> {
  if (condition === undefined) return undefined;
  const problem = validateConditionTree(condition);
  if (problem) throw conditionError(problem.path, problem.message);
  const tree = condition as ConditionTree;
  const segments = await loadReferencedSegments(db, projectId, tree);
  const compile: ContactPredicate = (params) => compileCondition(tree, { projectId, params, segments });
  try {
    compile([]);
  } catch (error) {
    if (error instanceof ConditionError) throw conditionError(error.path, error.reason);
    throw error;
  }
  return compile;
}
