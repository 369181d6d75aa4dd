import { z } from 'zod';

/** The JSON document Amazon SNS posts to an HTTP(S) subscriber. */
const common = {
  MessageId: z.string().min(1),
  TopicArn: z.string().min(1),
  Message: z.string(),
  Timestamp: z.string().min(1),
  SignatureVersion: z.enum(['1', '2']),
  Signature: z.string().min(1),
  SigningCertURL: z.string().min(1),
};

export const snsEnvelope = z.discriminatedUnion('Type', [
  z.object({ Type: z.literal('Notification'), ...common, Subject: z.string().nullish(), UnsubscribeURL: z.string().optional() }),
  z.object({ Type: z.enum(['SubscriptionConfirmation', 'UnsubscribeConfirmation']), ...common, SubscribeURL: z.string().min(1), Token: z.string().min(1) }),
]);

export type SnsEnvelope = z.infer<typeof snsEnvelope> & { Subject?: string | null; SubscribeURL?: string; Token?: string };

const timestamp = z.string().optional();

/**
 * The SES notification in a Notification's `Message`: the feedback format (`notificationType`) or
 * the event-publishing format (`eventType`). Only the fields we act on are read.
 */
export const sesMessage = z.object({
  notificationType: z.string().optional(),
  eventType: z.string().optional(),
  mail: z
    .object({
      messageId: z.string().optional(),
      headers: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
      commonHeaders: z.object({ messageId: z.string().optional() }).optional(),
    })
    .optional(),
  bounce: z
    .object({
      bounceType: z.string(),
      bounceSubType: z.string().optional(),
      bouncedRecipients: z.array(z.object({ emailAddress: z.string(), diagnosticCode: z.string().optional() })).optional(),
      timestamp,
    })
    .optional(),
  complaint: z.object({ complaintFeedbackType: z.string().optional(), timestamp }).optional(),
  delivery: z.object({ timestamp }).optional(),
});

export type SesMessage = z.infer<typeof sesMessage>;

export const sesAccepted = z.object({ received: z.boolean(), result: z.string() });
