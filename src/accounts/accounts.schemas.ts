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

export const changePasswordBody = z.object({
  currentPassword: z.string().max(1024),
  newPassword: newPasswordSchema,
});

export const changePasswordResponse = z.object({ success: z.literal(true), endedSessions: z.number().int() });

export const sessionSchema = z.object({
  id: z.uuid(),
  device: z.string().meta({ description: 'Browser and system, read from the User-Agent' }),
  userAgent: z.string(),
  ip: z.string().meta({ description: 'The address the session was last seen from' }),
  createdAt: z.string(),
  lastSeenAt: z.string().meta({ description: 'Updated at most once a minute' }),
  current: z.boolean().meta({ description: 'The session this request came with' }),
});

export const sessionsResponse = z.object({ data: z.array(sessionSchema) });

export const sessionParams = z.object({ id: z.uuid() });

export const endedSessionsResponse = z.object({ success: z.literal(true), ended: z.number().int() });
