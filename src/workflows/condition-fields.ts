import { listFields } from '../contacts/contact-fields.service.ts';
import type { Deps } from '../deps.ts';
import { eventNames } from '../events/events.service.ts';
import { CONDITION_OPERATORS, operatorsFor } from './step-configs.ts';
import { recentEventDataKeys } from './workflows.queries.ts';

/** How many recent events of a name are sampled for their data keys. */
const EVENT_SAMPLE = 500;

type Field = { field: string; type: string; source: 'contact' | 'data' | 'event' | 'context'; operators: string[] };

/**
 * GET /workflows/fields: what a CONDITION step can test (docs/decisions/workflows.md). The contact's `email` and
 * `subscribed`, every custom data key (from the cached field stats of GET /contacts/fields), the
 * event names of the project, and with `eventName` the data keys seen in that event's recent
 * occurrences as `event.<key>`. `context.<key>` is free-form: whatever a manual start passes.
 */
export async function conditionFields(deps: Pick<Deps, 'db' | 'queue'>, projectId: string, eventName?: string) {
  const stats = await listFields(deps, projectId);
  const fields: Field[] = [
    { field: 'email', type: 'string', source: 'contact', operators: [...operatorsFor('email')] },
    { field: 'subscribed', type: 'boolean', source: 'contact', operators: [...operatorsFor('subscribed')] },
    ...stats.filter((stat) => !stat.standard).map((stat): Field => ({ field: `data.${stat.name}`, type: stat.type, source: 'data', operators: [...CONDITION_OPERATORS] })),
  ];
  if (eventName) {
    for (const { key, type } of await recentEventDataKeys(deps.db, projectId, eventName, EVENT_SAMPLE)) {
      fields.push({ field: `event.${key}`, type, source: 'event', operators: [...CONDITION_OPERATORS] });
    }
  }
  const names = await eventNames(deps, projectId);
  return { fields, eventNames: names.data.map((entry) => entry.name) };
}
