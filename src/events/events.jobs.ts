import type { Deps } from '../deps.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { eventSubscribers } from './events.registry.ts';
import { EVENTS_DISPATCH_JOB, type EventsDispatchData } from './events.service.ts';

/** Hands recorded events to the subscribers (workflow triggers) in the worker. */
export function eventsJobs(_deps: Deps): JobDefinition<any>[] {
  const dispatch: JobDefinition<EventsDispatchData> = {
    name: EVENTS_DISPATCH_JOB,
    handle: async (jobs) => {
      const subscribers = eventSubscribers();
      if (subscribers.length === 0) return;
      for (const job of jobs) {
        for (const subscriber of subscribers) await subscriber(job.data);
      }
    },
  };
  return [dispatch];
}
