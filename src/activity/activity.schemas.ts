import { z } from 'zod';
import { emailMetrics, rates, windowQuery } from '../analytics/analytics.schemas.ts';
import { STREAMS } from '../emails/emails.queries.ts';

const typeFilter = z.string().min(1).max(200).describe('an event type (email.opened) or a family (email.*)');

export const activityQuery = z.object({
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.string().max(2048).optional(),
  type: typeFilter.optional(),
  contactId: z.uuid().optional(),
});

/** docs/decisions/contacts-and-events.md: `{ id, type, timestamp, contact: { id, email }, data }`. */
export const activityItem = z.object({
  id: z.uuid(),
  type: z.string(),
  timestamp: z.string(),
  contact: z.object({ id: z.uuid(), email: z.string() }),
  data: z.record(z.string(), z.unknown()),
  stream: z.enum(STREAMS).optional().describe('The stream of the email an email.* event is about (docs/streams.md); absent on other events'),
});

export const activityPage = z.object({ data: z.array(activityItem), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });

export const statsQuery = z.object(windowQuery);

export const statsResponse = z.object({
  from: z.string(),
  to: z.string(),
  upTo: z.string().nullable(),
  emails: z.object(emailMetrics),
  rates,
  contacts: z.object({ subscribed: z.number().int(), unsubscribed: z.number().int() }),
  events: z.object({ tracked: z.number().int() }),
});

export const recentCountQuery = z.object({
  since: z.iso.datetime({ offset: true }).describe('count activity strictly after this instant'),
  type: typeFilter.optional(),
});

export const recentCountResponse = z.object({ since: z.string(), until: z.string(), count: z.number().int(), capped: z.boolean() });

export const typesResponse = z.object({
  data: z.array(z.object({ type: z.string(), category: z.string(), service: z.boolean(), firstSeenAt: z.string() })),
});

export const upcomingQuery = z.object({
  hours: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 90)
    .optional()
    .describe('how far ahead to look (default 168 = 7 days)'),
  limit: z.coerce.number().int().min(1).optional(),
});

export const upcomingResponse = z.object({
  until: z.string(),
  data: z.array(
    z.object({
      type: z.string(),
      at: z.string(),
      id: z.string(),
      name: z.string(),
      contact: z.object({ id: z.string(), email: z.string() }).nullable(),
      data: z.record(z.string(), z.unknown()),
    }),
  ),
});
