import { z } from 'zod';
import type { ConditionGroup, ConditionTree, Filter } from './types.ts';
import { validateConditionTree } from './validate.ts';

/**
 * Structural zod schemas of a condition tree (docs/decisions/segments.md), for route body schemas and the OpenAPI
 * document. `conditionTreeSchema` checks the object shape only; `checkedConditionTreeSchema` also
 * applies every rule of validateConditionTree, reporting the bad element's path as a zod issue
 * (so a 422 names `audienceCondition.groups.0.filters.1.operator`).
 */
const filterSchema: z.ZodType<Filter> = z.object({
  field: z.string().describe('email, subscribed, createdAt, updatedAt, data.<key>, event.<name>, email.<activity> or segment.<id>'),
  operator: z.string(),
  value: z.unknown().optional(),
  unit: z.string().optional().describe('minutes, hours, days or weeks (time operators)'),
});

const groupSchema: z.ZodType<ConditionGroup> = z
  .lazy(() =>
    z.object({
      filters: z.array(filterSchema).default([]),
      conditions: conditionTreeSchema.optional(),
    }),
  )
  .register(z.globalRegistry, { id: 'ConditionGroup' }) as unknown as z.ZodType<ConditionGroup>;

export const conditionTreeSchema: z.ZodType<ConditionTree> = z
  .lazy(
    () =>
      z.object({
        logic: z.enum(['AND', 'OR']),
        groups: z.array(groupSchema).min(1),
      }),
    // Registered by name: the recursive tree becomes one component of /openapi.json that it refers to.
  )
  .register(z.globalRegistry, { id: 'ConditionTree' }) as unknown as z.ZodType<ConditionTree>;

/** `groups[0].filters[1].operator` → ['groups', 0, 'filters', 1, 'operator']. */
export function pathSegments(path: string): (string | number)[] {
  return path
    .split(/\.|\[(\d+)\]/)
    .filter((part) => part !== undefined && part !== '')
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

export const checkedConditionTreeSchema: z.ZodType<ConditionTree> = conditionTreeSchema.superRefine((tree, context) => {
  const problem = validateConditionTree(tree);
  if (problem) context.addIssue({ code: 'custom', message: problem.message, path: pathSegments(problem.path) });
});

const record = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/**
 * A tree reduced to the keys of docs/decisions/segments.md, as it is stored and answered: unknown keys dropped, a
 * `unit` kept only when it is a string. Total (never throws), so a row stored before a check
 * existed still reads back in the answer's shape.
 */
export function cleanConditionTree(tree: unknown): ConditionTree {
  const node = record(tree);
  const groups = Array.isArray(node.groups) ? node.groups : [];
  return {
    logic: node.logic === 'OR' ? 'OR' : 'AND',
    groups: groups.map((entry) => {
      const group = record(entry);
      const filters = (Array.isArray(group.filters) ? group.filters : []).map((item) => {
        const filter = record(item);
        return {
          field: String(filter.field ?? ''),
          operator: String(filter.operator ?? ''),
          ...(filter.value !== undefined ? { value: filter.value } : {}),
          ...(typeof filter.unit === 'string' ? { unit: filter.unit } : {}),
        };
      });
      return group.conditions !== undefined ? { filters, conditions: cleanConditionTree(group.conditions) } : { filters };
    }),
  };
}
