import { z } from 'zod';
import { newPasswordSchema } from '../auth/password-policy.ts';

const token = z.string().min(1).max(1000);

export const verifyEmailBody = z.object({ token });
// A malformed address is a 422 naming the field (a typo is shown to the user, not answered 202 and mailed to no one).
export const requestResetBody = z.object({ email: z.email().max(254) });
// The sign-up password policy (docs/decisions/accounts.md).
export const resetPasswordBody = z.object({ token, password: newPasswordSchema });

export const acceptedResponse = z.object({ success: z.literal(true) });
export const verifiedResponse = z.object({ id: z.uuid(), email: z.string(), emailVerifiedAt: z.string().nullable() });
export const oauthConfigResponse = z.object({
  providers: z.array(z.object({ id: z.string(), name: z.string(), authorizeUrl: z.string() })).describe('none until an OAuth provider is configured'),
});
