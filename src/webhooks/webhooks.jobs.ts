import { randomUUID } from 'node:crypto';
import { sendSystemMail } from '../accounts/account-mail.ts';
import type { Deps, EventsSubscriber } from '../deps.ts';
import type { JobDefinition, JobQueue } from '../jobs/queue.ts';
import { trailingWaker } from '../jobs/waker.ts';
import { DISABLE_AFTER_DAYS, WebhookDelivery } from './delivery.ts';
import { type DisabledEndpoint, fanOut, releaseClaimsOf } from './messages.queries.ts';
import { findOwnerEmails } from './webhooks.queries.ts';

export const WEBHOOK_DELIVERY_JOB = 'webhook-endpoints.deliver';
export const ENDPOINT_DISABLED_MAIL_JOB = 'webhook-endpoints.disabled-mail';
const BACKSTOP_CRON = '* * * * *';
const WAKE_INTERVAL_MS = 100;

type DisabledMail = { projectId: string; endpointId: string; url: string; reason: DisabledEndpoint['disabled_reason'] };

/** One delivery loop per server (tests run several servers in one process). */
const loops = new WeakMap<Deps, WebhookDelivery>();
function deliveryOf(deps: Deps): WebhookDelivery {
  let loop = loops.get(deps);
  if (!loop) {
    const disabled = (endpoints: DisabledEndpoint[]) => notifyDisabled(deps.queue, endpoints);
    loops.set(deps, (loop = new WebhookDelivery(deps, disabled)));
  }
  return loop;
}

async function notifyDisabled(queue: JobQueue, endpoints: DisabledEndpoint[]): Promise<void> {
  for (const e of endpoints) {
    await queue.send<DisabledMail>(ENDPOINT_DISABLED_MAIL_JOB, { projectId: e.project_id, endpointId: e.id, url: e.url, reason: e.disabled_reason });
  }
}

const wakers = new WeakMap<JobQueue, () => void>();
/**
 * Wakes a worker's delivery loop after a change committed (a replay, an endpoint enabled): at most
 * one queued job per 100 ms per process. The worker that fans events out kicks its own loop.
 */
export function wakeWebhookDelivery(deps: Pick<Deps, 'queue' | 'log'>): void {
  let wake = wakers.get(deps.queue);
  const send = () => deps.queue.send(WEBHOOK_DELIVERY_JOB, {}, { singletonKey: 'now' }).then(() => {});
  if (!wake) wakers.set(deps.queue, (wake = trailingWaker(send, WAKE_INTERVAL_MS, (error) => deps.log.warn({ err: error }, 'could not wake webhook delivery'))));
  wake();
}

/**
 * The events subscriber (wired in modules.ts): in the worker's events.dispatch drain, fans the
 * recorded events out to matching endpoints, in the statement that reads them, and kicks delivery.
 * The drain's row was written with the events, so an event recorded is an event fanned out.
 */
export function webhookFanOut(deps: Deps): EventsSubscriber {
  return async ({ projectId, eventIds }) => {
    if ((await fanOut(deps.db, projectId, eventIds)) > 0) deliveryOf(deps).kick();
  };
}

function disabledMail(projectName: string, mail: DisabledMail) {
  const why = mail.reason === 'gone' ? 'it answered 410 Gone, which says the endpoint no longer exists' : `every delivery to it has failed for ${DISABLE_AFTER_DAYS} days`;
  const subject = `Webhook endpoint disabled in ${projectName}`;
  const text = `The webhook endpoint ${mail.url} of the project ${projectName} was disabled because ${why}.\n\nIts undelivered messages are kept and go out once you enable it again (PATCH /webhook-endpoints/${mail.endpointId} with {"enabled": true}).\n`;
  const esc = (value: string) => value.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const html = `<p>The webhook endpoint <code>${esc(mail.url)}</code> of the project <strong>${esc(projectName)}</strong> was disabled because ${esc(why)}.</p><p>Its undelivered messages are kept and go out once you enable it again.</p>`;
  return { subject, text, html };
}

export function webhooksJobs(deps: Deps): JobDefinition<any>[] {
  const deliver: JobDefinition = {
    name: WEBHOOK_DELIVERY_JOB,
    queue: { policy: 'short', retryLimit: 0, expireInSeconds: 60 },
    work: { batchSize: 10, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 2 },
    // The loop runs beside the queue's handlers; the job only wakes it.
    handle: async () => deliveryOf(deps).kick(),
    stopped: () => deliveryOf(deps).stop(),
  };
  const mail: JobDefinition<DisabledMail> = {
    name: ENDPOINT_DISABLED_MAIL_JOB,
    work: { batchSize: 1 },
    async handle(jobs) {
      for (const job of jobs) {
        const owners = await findOwnerEmails(deps.db, job.data.projectId);
        for (const owner of owners) {
          const outcome = await sendSystemMail(deps.config, deps.systemSender, { id: randomUUID(), to: owner.email, ...disabledMail(owner.project_name, job.data) });
          if (outcome.kind === 'retry') throw new Error(`endpoint-disabled mail not sent yet: ${outcome.error}`);
        }
      }
    },
  };
  return [deliver, mail];
}

/** At start-up: a delivery run now (messages a stopped process left) and the backstop schedule. */
export async function startWebhookDelivery(deps: Pick<Deps, 'queue'>): Promise<void> {
  await deps.queue.send(WEBHOOK_DELIVERY_JOB, {}, { singletonKey: 'now' });
  await deps.queue.schedule(WEBHOOK_DELIVERY_JOB, BACKSTOP_CRON, { singletonKey: 'cron' });
}

/** The messages dead workers held are due again (src/jobs/instances.ts): this worker's loop takes them. */
export async function takeOverWebhookDelivery(deps: Deps, deadInstances: number[]): Promise<void> {
  if ((await releaseClaimsOf(deps.db, deadInstances)) > 0) deliveryOf(deps).kick();
}
