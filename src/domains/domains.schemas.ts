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
export const updateDomainBody = z.object({
  inbound: z.boolean().describe('Receive mail at any address of this domain (its MX must point at this server: see the MX record in `records`)'),
});
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
  verifiedAt: z.string().nullable(),
  lastCheckedAt: z.string().nullable(),
  createdAt: z.string(),
});
export type Domain = z.infer<typeof domainSchema>;

export const domainList = z.object({ data: z.array(domainSchema) });
