import { randomInt } from 'node:crypto';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Db } from '../db/index.ts';
import type { PostgresDb } from '../db/postgres.ts';
import { deadInstancesPostgres, forgetInstances, lockInstance, otherInstances, registerInstance } from './instances.queries.ts';

/** Releases the claims that dead instances held, so live workers take them now (one per capability). */
export type TakeOver = (dead: number[]) => Promise<void>;

/**
 * How often a worker looks for dead peers. Independent of the job schedules: a dead worker's
 * claims are back in the queue within this, far inside their lease (docs/decisions/sending.md).
 */
const PROBE_INTERVAL_MS = 5_000;

/**
 * This process as a claimer of work. Claims carry its id (`claimed_by`). On PostgreSQL a live
 * instance holds a session advisory lock on its id on a connection of its own; when the process
 * dies, its connection closes and PostgreSQL frees the lock, which any other worker sees at its next
 * probe (or at its start: a restarted worker takes back its predecessor's claims at once). The
 * embedded database is opened by one process at a time, so there every other instance is dead.
 */
export class WorkerInstance {
  readonly id = randomInt(1, 2 ** 31 - 1);
  private session: pg.Client | undefined;
  private timer: NodeJS.Timeout | undefined;
  private probing: Promise<void> | undefined;
  private takeOvers: TakeOver[] = [];

  constructor(
    private readonly db: Db,
    private readonly log: Logger,
  ) {}

  /** Registers this instance, takes over what dead ones held, and keeps probing. */
  async start(takeOvers: TakeOver[]): Promise<void> {
    this.takeOvers = takeOvers;
    if (this.db.kind === 'postgres') {
      this.session = new pg.Client({ connectionString: (this.db as PostgresDb).connectionString });
      this.session.on('error', (error) => this.log.error({ err: error }, 'worker instance lock connection lost'));
      await this.session.connect();
      await lockInstance(this.session, this.id);
    }
    // Only once the lock is held: a row without its lock reads as a dead instance.
    await registerInstance(this.db, this.id);
    await this.probe();
    this.timer = setInterval(() => {
      this.probing ??= this.probe()
        .catch((error) => this.log.warn({ err: error }, 'could not look for dead workers'))
        .finally(() => (this.probing = undefined));
    }, PROBE_INTERVAL_MS).unref();
  }

  private async probe(): Promise<void> {
    const dead = this.db.kind === 'postgres' ? await deadInstancesPostgres(this.db, this.id) : await otherInstances(this.db, this.id);
    if (dead.length === 0) return;
    for (const takeOver of this.takeOvers) await takeOver(dead);
    // Forgotten only once their claims are released: a crash in between probes them again.
    await forgetInstances(this.db, dead);
    this.log.info({ instances: dead }, 'took over the claims of stopped workers');
  }

  /**
   * After the work has stopped: releases the lock. The row stays, so whatever this process still
   * held (a hand-off whose answer outlived the shutdown timeout) is taken over by the next probe of
   * another worker, or by the next start on the embedded database.
   */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.probing;
    await this.session?.end().catch(() => {});
    this.session = undefined;
  }
}
