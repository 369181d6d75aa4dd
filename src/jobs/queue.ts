import { fromPglite, type Job, PgBoss, type Queue, type SendOptions, type WorkOptions } from 'pg-boss';
import type { Logger } from 'pino';
import type { Db, Queryable } from '../db/index.ts';
import type { PgliteDb } from '../db/pglite.ts';
import type { PostgresDb } from '../db/postgres.ts';

export type { Job } from 'pg-boss';

/**
 * A kind of background work, declared by the capability that owns it
 * (`contacts/contacts.jobs.ts`) and wired into the worker by the registry in jobs/registry.ts.
 */
export type JobDefinition<T extends object = object> = {
  name: string;
  /** Handles a batch; throwing fails (and, within retryLimit, retries) the whole batch. */
  handle: (jobs: Job<T>[]) => Promise<void>;
  queue?: Omit<Queue, 'name'>;
  work?: WorkOptions;
  /** Called when the process begins to stop, before running handlers are awaited: stop taking work. */
  stopping?: () => void;
  /** Releases what the handler keeps between jobs (connections), once the queue has stopped. */
  stopped?: () => void | Promise<void>;
};

export type EnqueueOptions = SendOptions & { tx?: Queryable };

// New jobs are picked up by NOTIFY at once and full batches fetch again at once (docs/architecture.md: batch 1
// is capped by polling). NOTIFY fires when a job is inserted, not when its startAfter falls due, so
// the backstop poll bounds how late a delayed job runs: 2 s keeps the contract's "within 5 seconds"
// for snoozes, workflow delays and scheduled campaigns (pg-boss's default backstop is 30 s).
const DEFAULT_WORK: WorkOptions = { batchSize: 20, burstWhenBatchFull: true, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: 2 };
const DEFAULT_QUEUE: Omit<Queue, 'name'> = { notify: true, retryLimit: 5, retryDelay: 5, retryBackoff: true, expireInSeconds: 15 * 60 };

/** The durable job queue (pg-boss) on the application database, in its own `pgboss` schema. */
export class JobQueue {
  private readonly boss: PgBoss;
  private readonly definitions = new Map<string, JobDefinition<any>>();
  private started = false;
  private handling = false;

  constructor(
    db: Db,
    private readonly log: Logger,
  ) {
    const connection =
      db.kind === 'pglite' ? { db: fromPglite((db as PgliteDb).pglite), backend: 'pglite' as const } : { connectionString: (db as PostgresDb).connectionString, max: 5 };
    this.boss = new PgBoss({ ...connection, useListenNotify: true, schema: 'pgboss' });
    this.boss.on('error', (error) => this.log.error({ err: error }, 'job queue error'));
  }

  define<T extends object>(definition: JobDefinition<T>): void {
    if (this.started) throw new Error(`Job ${definition.name} defined after the queue started`);
    this.definitions.set(definition.name, definition);
  }

  /** Creates the schema and queues; with `work`, this process also runs the handlers. */
  async start({ work }: { work: boolean }): Promise<void> {
    await this.boss.start();
    for (const definition of this.definitions.values()) {
      await this.boss.createQueue(definition.name, { ...DEFAULT_QUEUE, ...definition.queue });
    }
    this.started = true;
    if (!work) return;
    this.handling = true;
    for (const definition of this.definitions.values()) {
      const options = { ...DEFAULT_WORK, ...definition.work };
      // pg-boss requires the NOTIFY backstop to be no shorter than the base poll.
      options.notifyPollingIntervalSeconds = Math.max(options.notifyPollingIntervalSeconds ?? 0, options.pollingIntervalSeconds ?? 0);
      await this.boss.work(definition.name, options, async (jobs: Job<any>[]) => {
        await definition.handle(jobs);
      });
    }
  }

  /** Whether this process runs the handlers: started with `work`, and not stopping. */
  get works(): boolean {
    return this.handling;
  }

  /**
   * Enqueues a job. Pass `tx` to enqueue inside a transaction so the job exists exactly when the
   * transaction commits (required on PGlite: its single connection is held by the transaction).
   */
  async send<T extends object>(name: string, data: T, options: EnqueueOptions = {}): Promise<string | null> {
    if (!this.definitions.has(name)) throw new Error(`Unknown job ${name}`);
    const { tx, ...sendOptions } = options;
    const db = tx ? { executeSql: async (text: string, values?: unknown[]) => ({ rows: await tx.query(text, values) }) } : undefined;
    return this.boss.send(name, data, { ...sendOptions, ...(db ? { db } : {}) });
  }

  /**
   * Runs a defined job on a cron schedule (UTC). The schedule is kept in the database, so calling
   * this from every process at start-up is harmless and exactly one job is sent per occurrence.
   */
  async schedule(name: string, cron: string, options?: SendOptions): Promise<void> {
    if (!this.definitions.has(name)) throw new Error(`Unknown job ${name}`);
    await this.boss.schedule(name, cron, null, options);
  }

  /** Stops fetching, waits for running handlers (up to `timeoutSeconds`) and what they left running, then closes. */
  async stop(timeoutSeconds: number): Promise<void> {
    if (!this.started) return;
    this.handling = false;
    for (const definition of this.definitions.values()) definition.stopping?.();
    await this.boss.stop({ graceful: true, close: true, timeout: timeoutSeconds * 1000 });
    for (const definition of this.definitions.values()) await definition.stopped?.();
  }
}
