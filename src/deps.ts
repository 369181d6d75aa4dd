import type { FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { ApiKeyResolver } from './auth/api-keys.ts';
import type { SessionTokens } from './auth/sessions.ts';
import type { Config } from './config.ts';
import type { ConstraintErrors } from './db/errors.ts';
import type { Db, Queryable } from './db/index.ts';
import type { WorkerInstance } from './jobs/instances.ts';
import type { JobDefinition, JobQueue } from './jobs/queue.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { OutboundClient } from './outbound/index.ts';
import type { SnsClient } from './ses/sns.client.ts';

// This module names what capabilities are built from and what they tell each other. It imports
// only the infrastructure beneath them (config, db, jobs, outbound, auth's key and session
// helpers), never a capability, so a capability that takes `Deps` does not import every other
// one through it (docs/architecture.md, Layers).

/** What every capability is built from: made once in server.ts and handed down. */
export type Deps = {
  config: Config;
  db: Db;
  queue: JobQueue;
  keys: ApiKeyResolver;
  sessions: SessionTokens;
  log: Logger;
  /** Amazon SNS certificates and subscription links (POST /webhooks/ses); tests swap its transport. */
  sns: SnsClient;
  /** The one HTTP client (SSRF-guarded) for every call to a URL the server does not own. */
  outbound: OutboundClient;
  /** The sender and DKIM key of the server's own mail (SYSTEM_FROM), settled at start-up. */
  systemSender: SystemSender;
  /** This process as a claimer of work (`claimed_by`); started in processes that run jobs. */
  instance: WorkerInstance;
  /** What the capabilities tell each other (event subscribers, usage, ...), from CAPABILITIES. */
  registry: Registry;
  /** This process's Prometheus metrics (docs/metrics.md): one call where an outcome is decided. */
  metrics: Metrics;
  /**
   * The clock of domains' warm-up days (docs/streams.md, "Warm-up"): the database's UTC date moved
   * by `offsetSeconds`, which only tests change (to move the day on); 0 otherwise.
   */
  warmupClock: WarmupClock;
};

/** See Deps.warmupClock. */
export type WarmupClock = { offsetSeconds: number };

/** The sender of the server's own mail (address verification, password reset), made by src/domains/system-sender.ts. */
export type SystemSender = {
  address: string;
  name: string;
  /** Its domain's DKIM key; undefined when SYSTEM_FROM is unset (the mail then goes out unsigned). */
  key: { domainName: string; selector: string; privateKey: string } | undefined;
  /** The DNS records to publish for its domain (DKIM first), as a Domain's are. Empty when unsigned. */
  records: Array<{ type: 'TXT'; name: string; value: string; required: boolean; note?: string }>;
};

/**
 * Who hears recorded events (workflow triggers; webhook endpoints' fan-out): a Capability's
 * `events`. Subscribers run in the worker through the `events.dispatch` job, never inside the
 * request that recorded the events.
 */
export type RecordedEvents = { projectId: string; eventIds: string[] };
export type EventsSubscriber = (batch: RecordedEvents) => Promise<void>;

type Named = { id: string; name: string };
/** Where an event name is referenced (GET /events/{eventName}/usage), by kind. */
export type EventUsage = Record<'segments' | 'campaigns' | 'workflows', Named[]>;
/** A capability's references to an event name (a Capability's `usage.events`). */
export type EventUsageFinder = (db: Queryable, projectId: string, eventName: string) => Promise<Partial<EventUsage>>;

/** Where a contact field is referenced (GET /contacts/fields/{field}/usage), by kind. */
export type FieldUsage = Record<'segments' | 'campaigns' | 'workflows', Named[]>;
/** A capability's references to `field` (a custom key, or a standard field name): a Capability's `usage.fields`. */
export type FieldUsageFinder = (db: Queryable, projectId: string, field: { key: string; standard: boolean }) => Promise<Partial<FieldUsage>>;

/** Where a template is referenced (GET /templates/{id}/usage). */
export type TemplateUsage = { campaigns: Array<Named & { status: string }>; workflows: Array<Named & { stepId: string }> };
/**
 * A capability's references to a template (a Capability's `usage.templates`): campaigns and
 * workflows each return the rows of their own tables, keeping templates free of imports from theirs.
 */
export type TemplateUsageFinder = (db: Queryable, projectId: string, templateId: string) => Promise<Partial<TemplateUsage>>;

/**
 * Something due in the future (GET /activity/upcoming): a scheduled campaign, a workflow execution
 * waiting on a step. `id` and `name` are the campaign's or the workflow's; `data` holds the rest.
 */
export type UpcomingItem = {
  type: string;
  at: string;
  id: string;
  name: string;
  contact: { id: string; email: string } | null;
  data: Record<string, unknown>;
};
/** Items due no later than `until`, soonest first, at most `limit`. */
export type UpcomingSource = (db: Queryable, projectId: string, until: Date, limit: number) => Promise<UpcomingItem[]>;

/** Told which projects' sends, bounces or complaints grew in an analytics rollup run (the reputation check). */
export type RollupSubscriber = (projectIds: string[]) => Promise<void>;

/**
 * A capability, as src/modules.ts lists it: its HTTP routes (a Fastify plugin), its background
 * jobs, what it starts once the job queue runs (schedules, a first run for work a stopped process
 * left: every process calls it, before it listens, and a failure stops the start-up), and how it
 * takes over the claims of dead workers (src/jobs/instances.ts). The other fields are what it
 * tells the other capabilities, collected once into `deps.registry`, so none imports another's and
 * no module keeps a list that importing it fills. server.ts wires them.
 */
export type Capability = {
  name: string;
  routes?: FastifyPluginAsync<Deps>;
  jobs?: (deps: Deps) => JobDefinition<any>[];
  start?: (deps: Deps) => Promise<void>;
  takeOver?: (deps: Deps, deadInstances: number[]) => Promise<void>;
  /** Hears recorded events in the worker (events.dispatch), at least once; made once per server. */
  events?: (deps: Deps) => EventsSubscriber;
  /** Where it references others' things, for their usage endpoints (fields, event names, templates). */
  usage?: { fields?: FieldUsageFinder; events?: EventUsageFinder; templates?: TemplateUsageFinder };
  /** Its future work, for GET /activity/upcoming. */
  upcoming?: UpcomingSource;
  /** Hears which projects' counts grew in a rollup run (src/analytics/rollup.service.ts); made once per server. */
  rollups?: (deps: Deps) => RollupSubscriber;
  /** Its unique constraints that surface as a 409 of their own (src/db/errors.ts). */
  constraintErrors?: ConstraintErrors;
};

/** What the capabilities tell each other, in CAPABILITIES order: see Capability. */
export type Registry = {
  events: ReadonlyArray<(deps: Deps) => EventsSubscriber>;
  usage: { fields: readonly FieldUsageFinder[]; events: readonly EventUsageFinder[]; templates: readonly TemplateUsageFinder[] };
  upcoming: readonly UpcomingSource[];
  rollups: ReadonlyArray<(deps: Deps) => RollupSubscriber>;
  constraintErrors: ConstraintErrors;
};
