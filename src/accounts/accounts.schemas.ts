import { z } from 'zod';
import { newPasswordSchema } from '../auth/password-policy.ts';

/** Contract §2: an email and a password of 8–128 characters that is not easily guessed. */
export const credentialsBody = z.object({
  email: z.email().max(254),
  password: newPasswordSchema,
});

// Login checks the pair, not the password policy: a too-short password is simply wrong (401).
export const loginBody = z.object({
  email: z.string().max(254),
  password: z.string().max(1024),
});

export const accountResponse = z.object({ id: z.uuid(), email: z.string() });

export const meResponse = z.object({ id: z.uuid(), email: z.string(), createdAt: z.string() });

export const logoutResponse = z.object({ success: z.literal(true) });
