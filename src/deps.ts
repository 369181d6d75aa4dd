import type { Logger } from 'pino';
import type { ApiKeyResolver } from './auth/api-keys.ts';
import type { SessionTokens } from './auth/sessions.ts';
import type { Config } from './config.ts';
import type { Db } from './db/index.ts';
import type { SystemSender } from './domains/system-sender.ts';
import type { WorkerInstance } from './jobs/instances.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { Metrics } from './metrics/metrics.ts';
import type { Registry } from './modules.ts';
import type { OutboundClient } from './outbound/index.ts';
import type { SnsClient } from './ses/sns.client.ts';

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
};
