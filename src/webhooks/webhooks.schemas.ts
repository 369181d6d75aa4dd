import { z } from 'zod';

/**
 * An `events` entry (docs/decisions/webhook-endpoints.md): an exact event name, or a family ending in `.*` (`email.*`,
 * `contact.*`, `segment.*`), or `*` for every event. A `*` anywhere else matches nothing literally
 * and is refused, so a typo does not silently subscribe to nothing.
 */
const EVENT_FILTER = /^(\*|[^*\s][^*]*\.\*|[^*]+)$/;
export const eventFilterField = z.string().trim().min(1).max(200).regex(EVENT_FILTER, 'Expected an event name, a family such as email.* or contact.*, or * for every event');

const eventsField = z.array(eventFilterField).min(1).max(100);
const urlField = z.url().max(2048);
const descriptionField = z.string().trim().max(500);

export const createEndpointBody = z.object({ url: urlField, events: eventsField, description: descriptionField.optional() });
export const updateEndpointBody = z.object({
  url: urlField.optional(),
  events: eventsField.optional(),
  description: descriptionField.nullable().optional(),
  enabled: z.boolean().optional(),
});
export type CreateEndpointInput = z.infer<typeof createEndpointBody>;
export type UpdateEndpointInput = z.infer<typeof updateEndpointBody>;

export const endpointIdParams = z.object({ id: z.uuid() });
export const messageIdParams = z.object({ id: z.uuid(), messageId: z.uuid() });

export const endpointSchema = z.object({
  id: z.uuid(),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  enabled: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Endpoint = z.infer<typeof endpointSchema>;
export const endpointWithSecret = endpointSchema.extend({ secret: z.string() });
export const endpointList = z.object({ data: z.array(endpointSchema) });
export const secretResponse = z.object({ secret: z.string() });

export const MESSAGE_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export const listMessagesQuery = z.object({
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.string().max(2048).optional(),
  status: z.enum(MESSAGE_STATUSES).optional(),
});

export const attemptSchema = z.object({
  at: z.string(),
  statusCode: z.number().int().nullable(),
  durationMs: z.number().int(),
  response: z.string().describe('the first 1 KB of the answer, or why no answer came'),
});
export const messageSchema = z.object({
  id: z.uuid().describe('the webhook-id header'),
  type: z.string(),
  status: z.enum(MESSAGE_STATUSES),
  attempts: z.array(attemptSchema),
  nextAttemptAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof messageSchema>;
export const messagePage = z.object({ data: z.array(messageSchema), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });

export const replayWindowBody = z.object({
  since: z.iso.datetime({ offset: true }),
  until: z.iso.datetime({ offset: true }).optional(),
});
export const replayCount = z.object({ count: z.number().int() });
