import { z } from 'zod';

export const setupStateResponse = z.object({
  steps: z.array(z.object({ id: z.string(), label: z.string(), done: z.boolean() })),
  completed: z.number().int(),
  total: z.number().int(),
  done: z.boolean(),
});

export const resetBody = z.object({ confirm: z.string().max(200).describe("the project's exact name") });

export const resetResponse = z.object({
  success: z.literal(true),
  deleted: z.record(z.string(), z.number().int()).describe('rows removed per table'),
});
