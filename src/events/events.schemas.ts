import { z } from 'zod';

/**
 * the API reference (Events): names the service emits itself cannot be tracked. Matched without regard
 * to case, so `Email.Sent` cannot pass for a service event in a case-insensitive dashboard.
 */
const RESERVED_EVENT = [/^email\./i, /^contact\.(un)?subscribed$/i, /^segment\..+\.(entry|exit)$/i];
export const isReservedEventName = (name: string) => RESERVED_EVENT.some((pattern) => pattern.test(name));

/** the API reference (Events): the service event a change of `subscribed` emits. */
export function subscriptionEventName(subscribed: boolean): 'contact.subscribed' | 'contact.unsubscribed' {
  return subscribed ? 'contact.subscribed' : 'contact.unsubscribed';
}

export const eventNameField = z.string().trim().min(1).max(200);

export const eventItem = z.object({
  id: z.uuid(),
  name: z.string(),
  contactId: z.uuid(),
  email: z.string(),
  emailId: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export type EventItem = z.infer<typeof eventItem>;

export const eventPage = z.object({ data: z.array(eventItem), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });

const pageQuery = {
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.string().max(2048).optional(),
};

export const listEventsQuery = z.object({ ...pageQuery, name: z.string().max(200).optional(), contactId: z.uuid().optional() });

export const contactEventsParams = z.object({ contactId: z.uuid() });
export const contactEventsQuery = z.object({ ...pageQuery, name: z.string().max(200).optional() });

export const statsQuery = z.object({
  from: z.iso.datetime({ offset: true }).optional().describe('window start (default: 30 days before `to`)'),
  to: z.iso.datetime({ offset: true }).optional().describe('window end, exclusive (default: now)'),
  name: z.string().max(200).optional().describe('count only this event name'),
});

export const statsResponse = z.object({
  from: z.string(),
  to: z.string(),
  total: z.number().int(),
  byName: z.array(z.object({ name: z.string(), count: z.number().int() })),
  byDay: z.array(z.object({ date: z.string(), count: z.number().int() })),
});

export const eventNameParams = z.object({ eventName: eventNameField });

export const namesResponse = z.object({ data: z.array(z.object({ name: z.string(), firstSeenAt: z.string() })) });

const usageItems = z.array(z.object({ id: z.string(), name: z.string() }));
export const usageResponse = z.object({ segments: usageItems, campaigns: usageItems, workflows: usageItems });

export const deleteResponse = z.object({ deleted: z.number().int() });
