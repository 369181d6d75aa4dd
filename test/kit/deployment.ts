import { join } from 'node:path';
import type { Db } from '../../src/db/index.ts';
import { openPglite } from '../../src/db/pglite.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { type SpawnedServer, spawnServer } from './server.ts';

/**
 * Mailroom as an operator runs it, for crash tests: on PostgreSQL a ROLE=api process and a
 * ROLE=worker process; on the embedded database (one process may open it) a single process with
 * both roles, which then goes down and up with the worker.
 */
export type Deployment = {
  /** The API's base URL (changes when the single embedded process restarts). */
  apiUrl(): string;
  split: boolean;
  /** Sends `signal` to the worker; returns what `atSignal` read right after the signal, and the exit code. */
  signalWorker<T>(signal: NodeJS.Signals, atSignal: () => T): Promise<{ seen: T; code: number | null }>;
  /** Starts the worker again; resolves once it is ready (listening, start-up done) with that time. */
  restartWorker(): Promise<number>;
  /** The database, opened by the test while no embedded process runs (PostgreSQL: any time). */
  openDatabase(): Promise<Db>;
  output(): string;
  stop(): Promise<void>;
};

export async function startDeployment(env: Record<string, string>): Promise<Deployment> {
  const split = Boolean(env.DATABASE_URL);
  // The API first: it migrates, so the worker never races it.
  const api = split ? await spawnServer({ ...env, ROLE: 'api' }) : undefined;
  let worker: SpawnedServer = await spawnServer({ ...env, ...(split ? { ROLE: 'worker' } : {}) });
  let logs = '';
  return {
    split,
    apiUrl: () => (api ?? worker).url,
    async signalWorker(signal, atSignal) {
      worker.child.kill(signal);
      const seen = atSignal();
      const code = await worker.exited;
      logs += worker.output();
      return { seen, code };
    },
    async restartWorker() {
      worker = await spawnServer({ ...env, ...(split ? { ROLE: 'worker' } : {}) });
      return Date.now();
    },
    openDatabase: async () => (env.DATABASE_URL ? openPostgres(env.DATABASE_URL, { poolSize: 1 }) : openPglite(join(env.DATA_DIR!, 'pg'))),
    output: () => logs + worker.output() + (api?.output() ?? ''),
    async stop() {
      await worker.stop('SIGKILL');
      await api?.stop('SIGKILL');
    },
  };
}
