import { z } from 'zod';

const fieldType = z.enum(['string', 'number', 'boolean', 'date']);

export const fieldListResponse = z.object({
  data: z.array(
    z.object({
      name: z.string(),
      type: fieldType,
      standard: z.boolean(),
      coverage: z.number().min(0).max(100).describe('Percentage of contacts with a non-null value'),
    }),
  ),
});

export const fieldParams = z.object({
  field: z.string().min(1).max(200).describe('A custom data key, `plan` or `data.plan`; a bare standard name (`email`) is the standard field'),
});

const primitive = z.union([z.string(), z.number(), z.boolean()]);

export const fieldValuesResponse = z.object({ field: z.string(), values: z.array(primitive).max(100) });

const reference = z.object({ id: z.string(), name: z.string() });

export const fieldUsageResponse = z.object({
  field: z.string(),
  segments: z.array(reference),
  campaigns: z.array(reference),
  workflows: z.array(reference),
});

export const fieldDeleteResponse = z.object({ field: z.string(), updated: z.number().int() });
