import { z } from 'zod';

export const auditQuery = z.object({
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.string().max(2048).optional(),
  action: z.string().max(100).optional().describe('only entries of this action, e.g. member.added'),
});

export const auditEntry = z.object({
  id: z.uuid(),
  action: z.string(),
  /** null when the service itself acted (automatic disabling). */
  actor: z.object({ id: z.uuid(), email: z.string().nullable() }).nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});

export const auditPage = z.object({ data: z.array(auditEntry), cursor: z.string().nullable(), hasMore: z.boolean() });
