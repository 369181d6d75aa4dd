import { z } from 'zod';
import { emailField } from '../contacts/contacts.schemas.ts';

export const SUPPRESSION_REASONS = ['HARD_BOUNCE', 'COMPLAINT', 'MANUAL'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** docs/decisions/sending.md: one entry of the project's suppression list. */
export const suppressionSchema = z.object({
  email: z.string(),
  reason: z.enum(SUPPRESSION_REASONS),
  createdAt: z.string(),
  /** The email record that bounced or was complained about; absent for entries added by hand. */
  emailId: z.uuid().optional(),
});
export type Suppression = z.infer<typeof suppressionSchema>;

export const suppressionPage = z.object({ data: z.array(suppressionSchema), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });

export const listSuppressionsQuery = z.object({
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.string().max(2048).optional(),
  search: z.string().max(254).optional().describe('case-insensitive substring of the address'),
});

export const addSuppressionBody = z.object({
  email: emailField,
  reason: z.enum(SUPPRESSION_REASONS).optional().describe('default MANUAL'),
});

export const suppressionParams = z.object({ email: emailField });
