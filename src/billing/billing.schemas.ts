import { z } from 'zod';

const cap = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable();

/** Caps per calendar month (UTC); null means unlimited. Keys left out keep their current value. */
export const limitsBody = z.object({
  transactional: cap.optional().describe('emails sent through /v1/send per month'),
  campaigns: cap.optional().describe('campaign emails per month'),
  workflows: cap.optional().describe('workflow emails per month'),
});

export const limitsResponse = z.object({ transactional: cap, campaigns: cap, workflows: cap });

const line = z.object({ used: z.number().int(), limit: z.number().int().nullable(), remaining: z.number().int().nullable() });

export const consumptionResponse = z.object({
  periodStart: z.string(),
  periodEnd: z.string(),
  transactional: line,
  campaigns: line,
  workflows: line,
});

export const invoicesResponse = z.object({ data: z.array(z.never()) });
