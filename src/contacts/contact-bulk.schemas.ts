import { z } from 'zod';

// The 1–1000 bound is checked by the service, which answers 400 as docs/decisions/contacts-and-events.md says (a schema
// failure would be a 422).
export const bulkBody = z.object({
  contactIds: z.array(z.uuid()).describe('1 to 1000 contact ids of this project'),
});

export const jobAccepted = z.object({ jobId: z.uuid() });

export const jobParams = z.object({ jobId: z.uuid() });

/** docs/decisions/contacts-and-events.md: the status of a bulk or import job. */
export const jobStatusResponse = z.object({
  id: z.uuid(),
  type: z.enum(['bulk-subscribe', 'bulk-unsubscribe', 'bulk-delete', 'import']),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  errors: z
    .array(z.object({ id: z.string().optional(), row: z.number().int().optional(), message: z.string() }))
    .describe('The first 100 problems: { id, message } for bulk jobs, { row, message } for imports'),
  error: z.string().nullable().describe('Why the whole job failed; null otherwise'),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});

export const lookupBody = z.object({
  emails: z.array(z.string()).describe('1 to 500 email addresses; matched case-insensitively'),
});

export const lookupResponse = z.object({
  data: z.array(z.object({ email: z.string(), exists: z.boolean(), id: z.uuid().optional() })),
});
