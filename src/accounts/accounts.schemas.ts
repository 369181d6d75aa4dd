import { z } from 'zod';
import { newPasswordSchema } from '../auth/password-policy.ts';

/** docs/decisions/accounts.md: an email and a password of 8–128 characters that is not easily guessed. */
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

export const twoFactorChallengeResponse = z
  .object({
    twoFactorRequired: z.literal(true),
    challenge: z.string().meta({ description: 'Send it back to POST /auth/login/totp with a code, within 5 minutes' }),
  })
  .meta({ description: 'The password is right and the account has two-factor sign-in: no session yet' });

export const loginResponse = z.union([accountResponse, twoFactorChallengeResponse]);

const secondFactorFields = {
  code: z.string().max(16).optional().meta({ description: 'The 6-digit code of the authenticator app' }),
  recoveryCode: z.string().max(64).optional().meta({ description: 'One of the recovery codes, each usable once' }),
};

export const secondFactorBody = z.object(secondFactorFields).refine((b) => Boolean(b.code) !== Boolean(b.recoveryCode), { message: 'Send either code or recoveryCode' });

export const loginTotpBody = z
  .object({ challenge: z.string().max(2048), ...secondFactorFields })
  .refine((b) => Boolean(b.code) !== Boolean(b.recoveryCode), { message: 'Send either code or recoveryCode' });

export const totpEnrolmentResponse = z.object({
  secret: z.string().meta({ description: 'Base32, for typing into an authenticator app' }),
  uri: z.string().meta({ description: 'otpauth://totp/… URI' }),
  qrCode: z.string().meta({ description: 'The URI as a QR code: a PNG data URL' }),
});

export const totpConfirmBody = z.object({ code: z.string().max(16) });

export const totpConfirmResponse = z.object({
  enabled: z.literal(true),
  recoveryCodes: z.array(z.string()).meta({ description: 'Ten one-time codes, shown this once (stored hashed)' }),
});

export const totpDisableResponse = z.object({ enabled: z.literal(false) });

export const meResponse = z.object({ id: z.uuid(), email: z.string(), createdAt: z.string(), twoFactorEnabled: z.boolean() });

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
