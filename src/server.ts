import type { FastifyInstance } from 'fastify';
import { type Logger, pino } from 'pino';
import { buildApp } from './app.ts';
import { ApiKeyResolver } from './auth/api-keys.ts';
import { configureSecrets, resealSecrets } from './auth/secrets.ts';
import { SessionTokens } from './auth/sessions.ts';
import type { Config } from './config.ts';
import { distributeForCitus } from './db/distribution.ts';
import { openDatabase } from './db/index.ts';
import { migrate } from './db/migrate.ts';
import type { Deps } from './deps.ts';
import { prepareSystemSender, unsignedSystemSender } from './domains/system-sender.ts';
import { RATE_LIMIT_WINDOW_SECONDS } from './http/rate-limit.ts';
import { WorkerInstance } from './jobs/instances.ts';
import { JobQueue } from './jobs/queue.ts';
import { startMetricsServer } from './metrics/metrics.routes.ts';
import { Metrics } from './metrics/metrics.ts';
import { CAPABILITIES, composeRegistry } from './modules.ts';
import { createOutboundClient } from './outbound/index.ts';
import { SnsClient, snsTransport } from './ses/sns.client.ts';
import { type SmtpListeners, startSmtpListeners } from './smtp/listeners.ts';

export type RunningServer = {
  app: FastifyInstance;
  deps: Deps;
  /** Base URL the server listens on (the real port when PORT=0). */
  url: string;
  /** The SMTP listeners of a worker (docs/smtp.md), with the ports they took. */
  smtp: SmtpListeners | undefined;
  /** GET /metrics on METRICS_PORT (the real port when it is 0); undefined without METRICS_PORT. */
  metricsUrl: string | undefined;
  /** Drains in-flight requests, then in-flight jobs, then closes the database. */
  close(): Promise<void>;
};

/** Builds everything from the config and starts serving; the one place that wires the parts. */
export async function startServer(config: Config, log: Logger = pino({ level: config.logLevel })): Promise<RunningServer> {
  configureSecrets(config.secretsKey, config.secretsKeyPrevious);
  const db = await openDatabase(config);
  const queue = new JobQueue(db, log);
  const keys = new ApiKeyResolver(db, RATE_LIMIT_WINDOW_SECONDS * 1000);
  const outbound = createOutboundClient({ allowPrivate: config.webhookAllowPrivate, dnsServers: config.dnsServers });
  const sessions = new SessionTokens(config.sessionSecret);
  const systemSender = unsignedSystemSender(config); // SYSTEM_FROM's key is read or made after the migrations
  const instance = new WorkerInstance(db, log);
  const deps: Deps = {
    config,
    db,
    queue,
    keys,
    sessions,
    log,
    sns: new SnsClient(snsTransport(outbound)),
    outbound,
    systemSender,
    instance,
    registry: composeRegistry(CAPABILITIES),
    metrics: new Metrics(config, db),
    warmupClock: { offsetSeconds: 0 },
  };
  const work = config.role !== 'api';
  let app: FastifyInstance | undefined;
  let smtp: SmtpListeners | undefined;
  let metricsServer: Awaited<ReturnType<typeof startMetricsServer>>;
  try {
    const applied = await migrate(db);
    if (applied.length) log.info({ migrations: applied }, 'migrations applied');
    if (config.databaseDistribution === 'citus') {
      const distributed = await distributeForCitus(db);
      if (distributed.length) log.info({ tables: distributed }, 'tables distributed');
    }
    // Stored secrets in clear (from before encryption at rest) or under a previous key are sealed
    // with the current SECRETS_KEY (docs/security.md); after that this finds nothing to do.
    const resealed = await resealSecrets(db);
    if (Object.values(resealed).some(Boolean)) log.info({ resealed }, 'secrets sealed with the current SECRETS_KEY');
    deps.systemSender = await prepareSystemSender(db, config, log);
    for (const capability of CAPABILITIES) for (const job of capability.jobs?.(deps) ?? []) queue.define(job);
    await queue.start({ work });
    app = await buildApp(deps, { api: config.role !== 'worker' });
    // Before it listens: a worker first takes back what dead workers (its own predecessor) held,
    // then every capability queues its first runs and schedules. A failure here stops the start-up.
    if (work) await instance.start(CAPABILITIES.flatMap(({ takeOver }) => (takeOver ? [(dead: number[]) => takeOver(deps, dead)] : [])));
    for (const capability of CAPABILITIES) await capability.start?.(deps);
    await app.listen({ port: config.port, host: config.host });
    // Workers receive mail; an API process does not (docs/smtp.md).
    if (work) smtp = await startSmtpListeners(deps);
    metricsServer = await startMetricsServer(deps);
  } catch (error) {
    // Release what was opened, so a failed start leaves no handles keeping the process alive.
    await smtp?.close(0).catch(() => {});
    await app?.close().catch(() => {});
    await queue.stop(1).catch(() => {});
    await instance.stop().catch(() => {});
    await keys.close().catch(() => {});
    await db.close().catch(() => {});
    throw error;
  }
  const http = app;
  const address = http.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  log.info({ role: config.role, database: db.kind, port }, 'mailroom started');

  let closing: Promise<void> | undefined;
  const listeners = smtp;
  return {
    app: http,
    deps,
    smtp: listeners,
    url: `http://${host}:${port}`,
    metricsUrl: metricsServer?.url,
    close: () =>
      (closing ??= (async () => {
        await listeners?.close(config.shutdownTimeoutSeconds * 1000);
        await metricsServer?.close();
        await http.close();
        await queue.stop(config.shutdownTimeoutSeconds);
        await instance.stop();
        await keys.close();
        await db.close();
      })()),
  };
}
