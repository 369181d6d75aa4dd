import { z } from 'zod';
import { STREAMS } from '../emails/emails.queries.ts';
import type { ProviderRateRow } from './provider-rates.queries.ts';
import { PROVIDERS } from './providers.ts';

/** docs/streams.md: GET /deliverability, the project's sending rates per receiving provider and stream. */
export const deliverabilitySchema = z.object({
  sendRatePerSecond: z.number().nullable().describe('SEND_RATE_PER_SECOND: the project cap for all workers together; null when unlimited'),
  providers: z.array(
    z.object({
      provider: z.enum(PROVIDERS),
      stream: z.enum(STREAMS),
      ratePerSecond: z.number().describe('Messages per second allowed now; lowered by 421 / 4.7.x deferrals, raised slowly by deliveries'),
      maxPerSecond: z.number().describe('The ceiling (PROVIDER_RATE_MAX_PER_SECOND), where a provider that never deferred stays'),
      throttled: z.boolean().describe('The rate is below the ceiling: mail to this provider waits its turn'),
      deferralsLastHour: z.number().int().describe('421 and 4.7.x answers from this provider to this stream in the last hour'),
      lastDeferralAt: z.string().nullable().describe('When the rate was last lowered'),
    }),
  ),
});
export type Deliverability = z.infer<typeof deliverabilitySchema>;

export function toDeliverability(rows: ProviderRateRow[], limits: { sendRatePerSecond: number; maxPerSecond: number }): Deliverability {
  return {
    sendRatePerSecond: limits.sendRatePerSecond > 0 ? limits.sendRatePerSecond : null,
    providers: rows.map((row) => {
      const rate = row.rate === null ? limits.maxPerSecond : Math.round(Number(row.rate) * 100) / 100;
      return {
        provider: row.provider,
        stream: row.stream,
        ratePerSecond: rate,
        maxPerSecond: limits.maxPerSecond,
        throttled: rate < limits.maxPerSecond,
        deferralsLastHour: Number(row.deferrals),
        lastDeferralAt: row.decreased_at ? new Date(row.decreased_at).toISOString() : null,
      };
    }),
  };
}
