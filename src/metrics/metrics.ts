import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { PostgresDb } from '../db/postgres.ts';
import { QUEUES, type QueueDepth, queueDepths } from './queues.queries.ts';

/**
 * The process's Prometheus metrics (docs/metrics.md). Outcomes are counted where they are decided,
 * with one call each (delivery, webhooks, the workflow engine); queue depths and pool use are read
 * when scraped. Labels are bounded: route patterns, status codes, streams and outcomes, never a
 * project or an address; the projects of METRICS_PROJECTS (at most MAX_METRICS_PROJECTS) get series
 * of their own.
 */

/** docs/decisions/sending.md: campaigns and MARKETING templates are the marketing stream, the rest transactional. */
export type Stream = 'transactional' | 'marketing';
export const streamOf = (email: { source_type: string; content_type: string }): Stream =>
  email.source_type === 'CAMPAIGN' || email.content_type === 'MARKETING' ? 'marketing' : 'transactional';

/** What became of a delivery attempt: `retried` went back to the queue after a temporary failure. */
export type EmailOutcome = 'delivered' | 'bounced' | 'failed' | 'retried';
export type WebhookOutcome = 'succeeded' | 'retry' | 'failed';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Delivery and workflow lag span seconds to hours (retries back off up to 30 minutes). */
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 21600];

export class Metrics {
  readonly registry = new Registry();
  private readonly projects: ReadonlySet<string>;
  private readonly http: Histogram<'method' | 'route' | 'status'>;
  private readonly emails: Counter<'stream' | 'outcome'>;
  private readonly projectEmails: Counter<'project' | 'stream' | 'outcome'>;
  private readonly deliveryLatency: Histogram<'stream'>;
  private readonly webhooks: Counter<'outcome'>;
  private readonly workflowLag: Histogram;

  constructor(config: Config, db: Db) {
    this.projects = new Set(config.metrics.projects);
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.http = new Histogram({
      name: 'mailroom_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status code, with their duration.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.emails = new Counter({
      name: 'mailroom_emails_total',
      help: 'Delivery attempts by stream and outcome (delivered, bounced, failed, retried).',
      labelNames: ['stream', 'outcome'],
      registers,
    });
    this.projectEmails = new Counter({
      name: 'mailroom_project_emails_total',
      help: 'mailroom_emails_total of the projects listed in METRICS_PROJECTS.',
      labelNames: ['project', 'stream', 'outcome'],
      registers,
    });
    this.deliveryLatency = new Histogram({
      name: 'mailroom_delivery_latency_seconds',
      help: 'From acceptance of a message to the relay’s answer to it (the outbox’s write without SMTP_URL).',
      labelNames: ['stream'],
      buckets: LAG_BUCKETS,
      registers,
    });
    this.webhooks = new Counter({
      name: 'mailroom_webhook_deliveries_total',
      help: 'Attempts to deliver webhook messages to customer endpoints, by outcome.',
      labelNames: ['outcome'],
      registers,
    });
    this.workflowLag = new Histogram({
      name: 'mailroom_workflow_lag_seconds',
      help: 'From the start of an event-triggered workflow execution to the start of its first step.',
      buckets: LAG_BUCKETS,
      registers,
    });
    // Both gauges of a scrape share one read of the queues (prom-client collects them in parallel).
    const queues = sharedRead(() => readQueues(db, undefined));
    new Gauge({
      name: 'mailroom_queue_depth',
      help: 'Unfinished items per queue (delivery, workflow_executions, webhook_messages, imports): due, scheduled for a retry, or being worked on.',
      labelNames: ['queue'],
      registers,
      async collect() {
        for (const row of await queues()) this.set({ queue: row.queue }, row.depth);
      },
    });
    new Gauge({
      name: 'mailroom_queue_oldest_age_seconds',
      help: 'How long the longest-waiting due item of each queue has waited past its due time (0 when none waits).',
      labelNames: ['queue'],
      registers,
      async collect() {
        for (const row of await queues()) this.set({ queue: row.queue }, row.oldest_age);
      },
    });
    const projects = [...this.projects];
    if (projects.length) {
      new Gauge({
        name: 'mailroom_project_queue_depth',
        help: 'mailroom_queue_depth of the projects listed in METRICS_PROJECTS.',
        labelNames: ['project', 'queue'],
        registers,
        async collect() {
          for (const project of projects) for (const row of await readQueues(db, project)) this.set({ project, queue: row.queue }, row.depth);
        },
      });
    }
    if (db.kind === 'postgres') {
      const { pool, apiPool } = db as PostgresDb;
      new Gauge({
        name: 'mailroom_db_pool_connections',
        help: 'PostgreSQL connections per pool (background work, API requests) and state (idle, busy, waiting: callers waiting for one).',
        labelNames: ['pool', 'state'],
        registers,
        collect() {
          for (const [name, p] of [
            ['background', pool],
            ['api', apiPool],
          ] as const) {
            this.set({ pool: name, state: 'idle' }, p.idleCount);
            this.set({ pool: name, state: 'busy' }, p.totalCount - p.idleCount);
            this.set({ pool: name, state: 'waiting' }, p.waitingCount);
          }
        },
      });
    }
  }

  /** One answered HTTP request; `route` is the pattern (`/contacts/:id`), never the path. */
  httpRequest(method: string, route: string | undefined, status: number, seconds: number): void {
    this.http.observe({ method, route: route ?? 'unmatched', status: String(status) }, seconds);
  }

  /** A delivery attempt's outcome, as it is settled. */
  emailSettled(email: { project_id: string; source_type: string; content_type: string }, outcome: EmailOutcome): void {
    const stream = streamOf(email);
    this.emails.inc({ stream, outcome });
    if (this.projects.has(email.project_id)) this.projectEmails.inc({ project: email.project_id, stream, outcome });
  }

  /** The relay answered a message (or the outbox took it): acceptance to hand-off. */
  emailHandedOff(email: { source_type: string; content_type: string; created_at: Date | string }): void {
    this.deliveryLatency.observe({ stream: streamOf(email) }, secondsSince(email.created_at));
  }

  webhookDelivered(outcome: WebhookOutcome): void {
    this.webhooks.inc({ outcome });
  }

  /**
   * An execution is about to take steps. One started by an event that was never saved since (its
   * `updated_at` is still its `started_at`) takes its first step now: the lag is observed.
   */
  workflowStepping(execution: { event_id: string | null; started_at: Date | string; updated_at: Date | string }): void {
    if (execution.event_id === null || new Date(execution.updated_at).getTime() !== new Date(execution.started_at).getTime()) return;
    this.workflowLag.observe(secondsSince(execution.started_at));
  }

  /** The text exposition of every metric. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

const secondsSince = (at: Date | string) => Math.max(0, (Date.now() - new Date(at).getTime()) / 1000);

/** Every queue of QUEUES, with zeros for the empty ones. */
async function readQueues(db: Db, projectId: string | undefined): Promise<QueueDepth[]> {
  const rows = await queueDepths(db, projectId);
  return QUEUES.map((queue) => rows.find((row) => row.queue === queue) ?? { queue, depth: 0, oldest_age: 0 });
}

/** A read shared by the callers of the next second, so one scrape reads once. */
function sharedRead<T>(read: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > 1000) {
      last = { at: Date.now(), value: read() };
      last.value.catch(() => (last = undefined));
    }
    return last.value;
  };
}
