import { z } from 'zod';
import { domainNameField } from '../domains/domains.schemas.ts';

export const apiKeyParams = z.object({ id: z.uuid(), keyId: z.uuid() });

export const createApiKeyBody = z.object({
  name: z.string().trim().min(1).max(100).meta({ description: 'What the key is for, e.g. "Billing service"' }),
  scope: z.enum(['full', 'sending']).meta({ description: '`sending`: POST /v1/send, /v1/track, /v1/verify and SMTP submission only; `full`: every key-authenticated endpoint' }),
  senderDomains: z
    .array(domainNameField)
    .max(50)
    .optional()
    .meta({ description: 'When given, the key may send only from these domains (and their subdomains); omitted or empty: any verified domain of the project' }),
});

const apiKey = z.object({
  id: z.uuid(),
  name: z.string(),
  scope: z.enum(['full', 'sending']),
  senderDomains: z.array(z.string()),
  keyStart: z.string().meta({ description: 'The first characters of the key, to tell keys apart' }),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable().meta({ description: 'Updated at most once a minute' }),
});

export const apiKeyResponse = apiKey;

export const createdApiKeyResponse = apiKey.extend({ key: z.string().meta({ description: 'The secret key: shown in this answer only, never again' }) });

export const apiKeysResponse = z.object({ data: z.array(apiKey) });
