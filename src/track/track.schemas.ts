import { z } from 'zod';
import { contactDataField, emailField } from '../contacts/contacts.schemas.ts';
import { eventNameField, isReservedEventName } from '../events/events.schemas.ts';

/** POST /v1/track and POST /events/track (the API reference). */
export const trackBody = z.object({
  email: emailField,
  event: eventNameField.refine((name) => !isReservedEventName(name), {
    message: 'This event name is reserved for events the service emits (email.*, contact.subscribed, contact.unsubscribed, segment.<slug>.entry/exit).',
    params: { code: 'reserved_event' },
  }),
  subscribed: z.boolean().optional(),
  data: contactDataField.optional(),
});

export const trackResponse = z.object({
  success: z.literal(true),
  data: z.object({ contact: z.uuid(), event: z.uuid(), timestamp: z.string() }),
});
