import { z } from 'zod';
import { TRACKING_MODES } from '../links/tracking.ts';

export const roleSchema = z.enum(['OWNER', 'ADMIN', 'MEMBER']);

export const projectIdParams = z.object({ id: z.uuid() });

export const createProjectBody = z.object({ name: z.string().trim().min(1).max(100) });

const trackingMode = z.enum(TRACKING_MODES);

/** docs/decisions/sending.md: open and click tracking, each on all mail, MARKETING mail only, or off. */
export const trackingSchema = z.object({ opens: trackingMode, clicks: trackingMode });

export const updateProjectBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  disabled: z.boolean().optional(),
  tracking: z.object({ opens: trackingMode.optional(), clicks: trackingMode.optional() }).optional().describe('either or both; HEADLESS mail is never tracked'),
  requireTwoFactor: z.boolean().optional().describe('OWNER only: every member must have two-factor sign-in to use the project from the dashboard'),
  marketingPaused: z
    .literal(false)
    .optional()
    .describe('OWNER only: resume marketing mail that AUTO_DISABLE paused for its rates; the sends before no longer count (docs/decisions/reputation.md)'),
});

/** docs/decisions/accounts.md: the Project record. */
export const projectResponse = z.object({
  id: z.uuid(),
  name: z.string(),
  publicKey: z.string(),
  secretKey: z.string(),
  disabled: z.boolean(),
  tracking: trackingSchema,
  requireTwoFactor: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

// Keys are shown to OWNER and ADMIN only (docs/decisions/accounts.md), so they are optional in the listing.
export const projectListResponse = z.object({
  data: z.array(projectResponse.extend({ publicKey: z.string().optional(), secretKey: z.string().optional(), role: roleSchema })),
});

export const keysResponse = z.object({ publicKey: z.string(), secretKey: z.string() });

export const whoamiResponse = z.object({
  success: z.literal(true),
  data: z.object({ projectId: z.uuid(), projectName: z.string(), keyType: z.enum(['secret', 'session']) }),
});

export const memberParams = z.object({ id: z.uuid(), userId: z.uuid() });

export const addMemberBody = z.object({ email: z.email().max(254), role: roleSchema });

export const updateMemberBody = z.object({ role: roleSchema });

export const memberResponse = z.object({ userId: z.uuid(), email: z.string(), role: roleSchema, createdAt: z.string() });
/** 202 of POST /projects/{id}/members: the address has no account; an invitation was mailed (docs/decisions/accounts.md). */
export const invitationResponse = z.object({ invited: z.literal(true), email: z.string(), role: roleSchema, createdAt: z.string() });

export const memberListResponse = z.object({ data: z.array(memberResponse) });
