import { z } from 'zod';
import { contactDataField, emailField } from '../contacts/contacts.schemas.ts';

/** the API reference (Limits): at most 10 attachments, 10 MB decoded in total; 40 MB for the whole message. */
export const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
export const MAX_MESSAGE_BYTES = 40 * 1024 * 1024;
/** A recipient list longer than this is a campaign, not a send (docs/decisions/sending.md). */
export const MAX_RECIPIENTS = 50;
// RFC 5322 §2.1.1: a header line is at most 998 characters.
const MAX_HEADER_LINE = 998;

const NO_CR_LF = /^[^\r\n]*$/;
// A display name is a header phrase: no line breaks (header injection).
const displayName = z.string().max(200).regex(NO_CR_LF, 'Must not contain CR or LF.');

const addressObject = z.object({ name: displayName.optional(), email: emailField });
const address = z.union([emailField, addressObject]);
export type AddressInput = z.infer<typeof address>;

/**
 * `to`: an address, `{ name, email }`, or an array of either. Checked element by element so that
 * errors name the element (`to.1.email`, docs/architecture.md) instead of one opaque union failure.
 */
const toField = z.unknown().transform((value, ctx): Array<{ email: string; name?: string }> => {
  if (value === undefined || value === null) {
    ctx.addIssue({ code: 'invalid_type', expected: 'string', input: value, message: 'Required' } as never);
    return z.NEVER;
  }
  const list = Array.isArray(value) ? value : [value];
  const prefix = (i: number) => (Array.isArray(value) ? [i] : []);
  if (Array.isArray(value) && (value.length < 1 || value.length > MAX_RECIPIENTS)) {
    ctx.addIssue({
      code: value.length < 1 ? 'too_small' : 'too_big',
      origin: 'array',
      ...(value.length < 1 ? { minimum: 1 } : { maximum: MAX_RECIPIENTS }),
      inclusive: true,
      message: `Between 1 and ${MAX_RECIPIENTS} recipients.`,
      input: value,
    } as never);
    return z.NEVER;
  }
  const out: Array<{ email: string; name?: string }> = [];
  list.forEach((item, i) => {
    const schema = typeof item === 'object' && item !== null ? addressObject : emailField;
    const parsed = schema.safeParse(item, { reportInput: true });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [...prefix(i), ...issue.path] } as never);
      return;
    }
    out.push(typeof parsed.data === 'string' ? { email: parsed.data } : parsed.data);
  });
  return out;
});

// Headers the service writes itself (docs/decisions/sending.md message shape); a custom one would duplicate or forge them.
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'sender',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'content-id',
  'dkim-signature',
  'return-path',
]);

const headerName = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[!-9;-~]+$/, 'Header names are printable ASCII without spaces or colons.');

/** Custom headers: names and values without CR or LF, values at most 998 characters (the API reference (Limits)). */
const headersField = z.record(z.string(), z.unknown()).transform((headers, ctx) => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const nameCheck = headerName.safeParse(name);
    if (!nameCheck.success) ctx.addIssue({ code: 'invalid_format', format: 'regex', message: nameCheck.error.issues[0]!.message, path: [name], input: name } as never);
    else if (RESERVED_HEADERS.has(name.toLowerCase()))
      ctx.addIssue({ code: 'custom', message: `${name} is set by the service and cannot be a custom header.`, path: [name], input: name });
    if (typeof value !== 'string') {
      ctx.addIssue({ code: 'invalid_type', expected: 'string', path: [name], input: value } as never);
    } else if (!NO_CR_LF.test(value)) {
      ctx.addIssue({ code: 'invalid_format', format: 'regex', message: 'Header values must not contain CR or LF.', path: [name], input: value } as never);
    } else if (value.length > MAX_HEADER_LINE) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'string',
        maximum: MAX_HEADER_LINE,
        inclusive: true,
        message: `At most ${MAX_HEADER_LINE} characters.`,
        path: [name],
        input: value,
      } as never);
    } else out[name] = value;
  }
  return out;
});

const BASE64 = /^[A-Za-z0-9+/\r\n]*={0,2}[\r\n]*$/;

export const attachmentSchema = z
  .object({
    // No line breaks or quotes: the name goes into Content-Disposition / Content-Type parameters.
    filename: z
      .string()
      .min(1)
      .max(255)
      .regex(/^[^\r\n"']*$/, 'Filenames must not contain newline or quote characters.'),
    content: z.string().min(1).regex(BASE64, 'Must be base64.'),
    contentType: z
      .string()
      .trim()
      .toLowerCase()
      .regex(/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/, 'Must be a MIME type such as application/pdf.'),
    contentId: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[^\s<>"]+$/, 'No spaces, angle brackets or quotes.')
      .optional(),
    disposition: z.enum(['attachment', 'inline']).default('attachment'),
  })
  .superRefine((attachment, ctx) => {
    if (attachment.disposition === 'inline' && !attachment.contentId) {
      ctx.addIssue({ code: 'invalid_type', expected: 'string', path: ['contentId'], input: undefined, message: 'Required when disposition is inline.' } as never);
    }
  });
export type AttachmentInput = z.infer<typeof attachmentSchema>;

/** POST /v1/send (the API reference). Cross-field rules (subject+body or template) are checked in send.service.ts. */
export const sendBody = z.object({
  to: toField,
  subject: z.string().min(1).max(998).regex(NO_CR_LF, 'The subject must not contain newline characters.').optional(),
  body: z.string().min(1).optional(),
  template: z.uuid().optional(),
  from: address.optional(),
  name: displayName.optional(),
  subscribed: z.boolean().optional(),
  data: contactDataField.optional(),
  headers: headersField.optional(),
  reply: emailField.optional(),
  attachments: z.array(attachmentSchema).max(MAX_ATTACHMENTS).optional(),
});
export type SendInput = z.infer<typeof sendBody>;

export const sendResponse = z.object({
  success: z.literal(true),
  data: z.object({
    emails: z.array(z.object({ contact: z.object({ id: z.uuid(), email: z.string() }), email: z.uuid() })),
    timestamp: z.string(),
  }),
});
