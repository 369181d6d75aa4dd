import { z } from 'zod';

/**
 * POST /v1/verify (the API reference). `email` is any string: a malformed address is a verification result
 * (200, valid false), not a validation error (docs/decisions/verify.md); only a missing or non-string one is a 422.
 */
export const verifyBody = z.object({
  email: z.string().meta({ description: 'The address to check', example: 'jane@example.com' }),
});

export const verification = z.object({
  email: z.string(),
  valid: z.boolean(),
  isDisposable: z.boolean(),
  isAlias: z.boolean(),
  isTypo: z.boolean(),
  isPlusAddressed: z.boolean(),
  isPersonalEmail: z.boolean(),
  domainExists: z.boolean().meta({ description: 'The domain exists (its NS lookup did not answer NXDOMAIN)' }),
  hasWebsite: z.boolean().meta({ description: 'The domain has A or AAAA records (informational)' }),
  hasMxRecords: z.boolean(),
  suggestedEmail: z.string().optional().meta({ description: 'Present when the domain looks like a typo of a well-known one' }),
  reasons: z.array(z.string()),
});
export type Verification = z.infer<typeof verification>;

export const verifyResponse = z.object({ success: z.literal(true), data: verification });
