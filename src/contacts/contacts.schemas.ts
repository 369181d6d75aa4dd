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

/** api.md Contact, from a contacts row. */
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
