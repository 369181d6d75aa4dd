import type { Deps } from '../deps.ts';
import { type Deliverability, toDeliverability } from './deliverability.schemas.ts';
import { listProviderRates } from './provider-rates.queries.ts';

/** GET /deliverability (docs/streams.md): the project's rates per provider and stream, the caps they live under. */
export async function getDeliverability(deps: Pick<Deps, 'db' | 'config'>, projectId: string): Promise<Deliverability> {
  return toDeliverability(await listProviderRates(deps.db, projectId), {
    sendRatePerSecond: deps.config.sendRatePerSecond,
    maxPerSecond: deps.config.providerRate.maxPerSecond,
  });
}
