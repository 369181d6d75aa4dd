import { domainToASCII } from 'node:url';
import { z } from 'zod';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
// A top-level label is letters or an IDN (xn--…): this also keeps IP addresses out.
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * A sender domain as stored: trimmed, lower-cased, one trailing dot dropped, IDNs as punycode.
 * Undefined when it is not a host name with at least one dot (no scheme, path, port or address).
 */
export function normalizeDomainName(input: string): string | undefined {
  let name = input.trim().toLowerCase().replace(/\.$/, '');
  if ([...name].some((char) => char.charCodeAt(0) > 0x7f)) name = domainToASCII(name);
  if (!name || name.length > 253) return undefined;
  const labels = name.split('.');
  if (labels.length < 2) return undefined;
  if (!labels.every((label) => LABEL.test(label))) return undefined;
  if (!TOP_LABEL.test(labels.at(-1)!)) return undefined;
  return name;
}

export const domainNameField = z
  .string()
  .max(300)
  .refine((value) => normalizeDomainName(value) !== undefined, {
    message: 'Expected a domain name such as example.com (no scheme, path or port)',
    params: { code: 'invalid_string' },
  })
  .overwrite((value) => normalizeDomainName(value) ?? value);

export const createDomainBody = z.object({ domain: domainNameField });
/** A day of the warm-up clock: an ISO date (UTC). */
const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected a date such as 2026-11-27')
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), 'Expected a date such as 2026-11-27');

export const warmupBody = z.object({
  enabled: z.boolean().describe('Cap the MARKETING mail this domain signs per UTC day, by the schedule; transactional mail is never capped'),
  schedule: z
    .array(z.number().int().min(1).max(10_000_000))
    .min(1)
    .max(90)
    .nullable()
    .optional()
    .describe(
      'Daily caps, the first for the first day; after the last day the domain is warmed up and nothing is capped. null: the default (200, doubling daily up to 100,000). Omitted: unchanged',
    ),
  startedAt: isoDate.optional().describe('The UTC date of the first day of the schedule. Omitted: unchanged, or today when the warm-up had never started'),
});

export const updateDomainBody = z
  .object({
    inbound: z.boolean().optional().describe('Receive mail at any address of this domain (its MX must point at this server: see the MX record in `records`)'),
    warmup: warmupBody.optional().describe('docs/streams.md, "Warm-up": daily caps on marketing mail from a new domain'),
  })
  .refine((body) => body.inbound !== undefined || body.warmup !== undefined, { message: 'Give inbound, warmup or both', path: ['inbound'] });
export type DomainPatch = z.infer<typeof updateDomainBody>;
export const domainIdParams = z.object({ id: z.uuid() });
export const projectIdParams = z.object({ projectId: z.uuid() });

export const recordStateSchema = z
  .enum(['not_checked', 'found', 'wrong_value', 'missing'])
  .describe(
    'What the last DNS check found at the name: `found` (published as needed), `wrong_value` (other TXT values are there: see `found`), `missing` (no such record), `not_checked` (no check has answered yet)',
  );
export type RecordState = z.infer<typeof recordStateSchema>;

export const dnsRecordSchema = z.object({
  type: z.enum(['TXT', 'MX']),
  name: z.string(),
  value: z
    .string()
    .describe(
      'The value to publish. SPF: the relay’s mechanisms (SPF_MECHANISMS), merged into the domain’s existing SPF record when it has one; DMARC: the domain’s own record once it has one',
    ),
  priority: z.number().int().optional().describe('MX only: the preference to publish'),
  required: z.boolean().describe('Only required records decide verification (DKIM)'),
  note: z.string().optional(),
  state: recordStateSchema,
  found: z.array(z.string()).describe('The TXT values found at the name at the last check (for SPF, its v=spf1 records), strings joined'),
});
export type DnsRecord = z.infer<typeof dnsRecordSchema>;

export const domainSchema = z.object({
  id: z.uuid(),
  domain: z.string(),
  status: z.enum(['pending', 'verified']),
  records: z.array(dnsRecordSchema),
  inbound: z.boolean().describe('Inbound mail: mail to any address of the domain is received and recorded as an email.received event (docs/inbound.md); verified domains only'),
  warmup: z
    .object({
      enabled: z.boolean(),
      schedule: z.array(z.number().int()).describe("The daily caps: the domain's own, or the default offered to every domain"),
      custom: z.boolean().describe('false: the default schedule'),
      startedAt: z.string().nullable().describe('The UTC date of the first day'),
      day: z.number().int().nullable().describe('The day of the schedule today (1 is the first); null while the warm-up is off'),
      capToday: z.number().int().nullable().describe('Marketing messages this domain may sign today; null when nothing is capped (off, or past the last day)'),
      sentToday: z.number().int().describe('Marketing messages it signed today under the cap'),
    })
    .describe('docs/streams.md, "Warm-up": mail over the day\'s cap waits (not an attempt) until the next UTC day'),
  verifiedAt: z.string().nullable(),
  lastCheckedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Domain = z.infer<typeof domainSchema>;

export const domainList = z.object({ data: z.array(domainSchema) });
