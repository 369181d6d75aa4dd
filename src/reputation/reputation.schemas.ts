import { z } from 'zod';

const level = z.enum(['insufficient_data', 'ok', 'warning', 'critical']);
const window = z.object({
  sends: z.number().int(),
  bounced: z.number().int(),
  complained: z.number().int(),
  bounceRate: z.number(),
  complaintRate: z.number(),
  bounceLevel: level,
  complaintLevel: level,
  level,
});
const threshold = z.object({ warning: z.number(), critical: z.number() });

export const securityResponse = z.object({
  projectId: z.uuid(),
  disabled: z.boolean(),
  disabledReason: z.string().nullable(),
  autoDisable: z.boolean(),
  status: level,
  reviewedAt: z.string().nullable(),
  thresholds: z.object({ minimumSends: z.number().int(), bounceRate: threshold, complaintRate: threshold }),
  last7Days: window,
  allTime: window,
  streams: z
    .object({ transactional: z.object({ last7Days: window, allTime: window }), marketing: z.object({ last7Days: window, allTime: window }) })
    .describe('The same rates per stream (docs/streams.md), counted since the upgrade that introduced them: AUTO_DISABLE pauses marketing mail for the marketing rates'),
  marketingPaused: z
    .boolean()
    .describe('Marketing mail is held (AUTO_DISABLE, for its rates); transactional mail flows. An OWNER resumes it with PATCH /users/@me/projects/{id} { marketingPaused: false }'),
  marketingPausedReason: z.string().nullable(),
  suspensions: z.array(z.object({ reason: z.string().nullable(), at: z.string() })),
});
