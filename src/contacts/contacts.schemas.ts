import { z } from 'zod';

/** A contacts row as the queries select it (`SELECT contacts.*` works). */
export type ContactRow = {
  id: string;
  email: string;
  subscribed: boolean;
  snoozed_until: Date | string | null;
  data: Record<string, unknown>;
  created_at: Date | string;
  updated_at: Date | string;
};

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();

/** the API reference (Contact), from a contacts row. */
export function toContact(row: ContactRow): Contact {
  return {
    id: row.id,
    email: row.email,
    subscribed: row.subscribed,
    snoozedUntil: row.snoozed_until === null ? null : iso(row.snoozed_until),
    data: row.data ?? {},
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

export const contactSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  subscribed: z.boolean(),
  snoozedUntil: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Contact = z.infer<typeof contactSchema>;

// Emails are trimmed and lower-cased before the format check (the API reference: unique within the project).
export const emailField = z.string().trim().toLowerCase().max(254).pipe(z.email());
export const contactDataField = z.record(z.string(), z.unknown());

export const contactIdParams = z.object({ id: z.uuid() });

// `email` is optional here only so that its absence can be the flat 400 the API reference requires.
export const createContactBody = z.object({
  email: emailField.optional(),
  subscribed: z.boolean().optional(),
  data: contactDataField.optional(),
});

export const updateContactBody = z.object({
  email: emailField.optional(),
  subscribed: z.boolean().optional(),
  data: contactDataField.optional(),
  snoozedUntil: z.iso
    .datetime({ offset: true })
    .refine((value) => Date.parse(value) > Date.now(), { message: 'snoozedUntil must be in the future; null ends a snooze.' })
    .nullable()
    .optional(),
});

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

/** the API reference (Conventions) and Contacts; unknown sort → createdAt, unknown dir → desc (not refused). */
export const conditionQuery = z.string().max(100_000).optional().describe('a condition tree (as segments take) as JSON text');

export const listContactsQuery = z.object({
  limit: z.coerce.number().int().min(1).optional(),
  cursor: z.string().max(2048).optional(),
  search: z.string().max(254).optional(),
  subscribed: booleanQuery.optional(),
  sort: z.string().optional().describe('email or createdAt (default; unknown values fall back to it)'),
  dir: z.string().optional().describe('asc or desc (default; unknown values fall back to it)'),
  condition: conditionQuery,
});

export const contactWithMeta = contactSchema.extend({ _meta: z.object({ isNew: z.boolean(), isUpdate: z.boolean() }) });

export const contactPage = z.object({ data: z.array(contactSchema), cursor: z.string().nullable(), hasMore: z.boolean(), total: z.number().int() });
