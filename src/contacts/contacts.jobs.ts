import type { Deps } from '../deps.ts';
import { recordEvents } from '../events/events.service.ts';
import type { JobDefinition } from '../jobs/queue.ts';
import { endDueSnoozes } from './contacts.queries.ts';

export const SNOOZE_END_JOB = 'contacts.snooze-end';
export type SnoozeEndData = { projectId: string; contactId: string };

/**
 * contacts.snooze-end (the API reference (Contact).snoozedUntil): scheduled for the snooze's end; resubscribes
 * the contact if it is still snoozed and due, and emits contact.subscribed (docs/decisions/contacts-and-events.md).
 */
export function contactsJobs(deps: Deps): JobDefinition<any>[] {
  const snoozeEnd: JobDefinition<SnoozeEndData> = {
    name: SNOOZE_END_JOB,
    // A delayed job sends no NOTIFY when it falls due, so the backstop poll decides how late a
    // snooze ends; pg-boss's default backstop with NOTIFY on is 30 s.
    work: { batchSize: 20, burstWhenBatchFull: true, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 1 },
    handle: async (jobs) => {
      const byProject = new Map<string, string[]>();
      for (const job of jobs) byProject.set(job.data.projectId, [...(byProject.get(job.data.projectId) ?? []), job.data.contactId]);
      for (const [projectId, ids] of byProject) {
        await deps.db.transaction(async (tx) => {
          const ended = await endDueSnoozes(tx, projectId, ids);
          await recordEvents(
            tx,
            projectId,
            ended.map((row) => ({ contactId: row.id, name: 'contact.subscribed' })),
          );
        });
      }
    },
  };
  return [snoozeEnd];
}
