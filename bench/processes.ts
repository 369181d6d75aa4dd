import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Db } from '../src/db/index.ts';
import { openPglite } from '../src/db/pglite.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { PACKAGE_ROOT } from '../src/paths.ts';
import { citusWorkers, dropCitusDatabase, prepareCitusDatabase } from '../test/kit/citus.ts';
import { copySnapshotTo } from '../test/kit/pglite-snapshot.ts';
import type { DatabaseLabel } from './scenario.ts';

export type ChildServer = {
  url: string;
  /** The server's PostgreSQL database (postgres and citus). */
  databaseUrl?: string;
  stop: () => Promise<void>;
  /**
   * Stops the server, hands its database to `work` (seeding large data sets directly in SQL is
   * minutes faster than through the API, and PGlite can be opened by one process only), then
   * starts it again on the same address. Mailroom only.
   */
  withServerStopped?: (work: (db: Db) => Promise<void>) => Promise<void>;
};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Runs a TypeScript entry point in its own Node process (servers never share the load generator's
 * CPU time slice). BENCH_NODE_ARGS adds Node flags to it, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
 * to profile the server (Node refuses --cpu-prof in NODE_OPTIONS).
 */
function spawnTs(entry: string, env: Record<string, string>) {
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // A compiled entry (dist/) runs as production runs it: no TypeScript loader in the process.
  const loader = entry.endsWith('.js') ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, join(PACKAGE_ROOT, entry)], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/**
 * The Mailroom entry the bench starts: the TypeScript source through tsx, or with
 * `BENCH_SERVER=dist` the compiled build that `npm start` and the container image run
 * (`npx tsc -p tsconfig.build.json` first), whose memory is the production figure.
 */
const MAILROOM_ENTRY = process.env.BENCH_SERVER === 'dist' ? 'dist/src/main.js' : 'src/main.ts';

/** A build older than the source it came from would measure other code than the checkout's: refused. */
function checkBuild(): void {
  if (!MAILROOM_ENTRY.endsWith('.js')) return;
  const built = join(PACKAGE_ROOT, MAILROOM_ENTRY);
  if (!existsSync(built)) throw new Error(`BENCH_SERVER=dist: ${MAILROOM_ENTRY} is missing; run \`npx tsc -p tsconfig.build.json\` first`);
  const builtAt = statSync(built).mtimeMs;
  const newer = readdirSync(join(PACKAGE_ROOT, 'src'), { recursive: true, encoding: 'utf8' }).find(
    (file) => file.endsWith('.ts') && statSync(join(PACKAGE_ROOT, 'src', file)).mtimeMs > builtAt,
  );
  if (newer) throw new Error(`BENCH_SERVER=dist: src/${newer} is newer than ${MAILROOM_ENTRY}; run \`npx tsc -p tsconfig.build.json\` again`);
}

async function waitUntilHealthy(url: string, exited: Promise<unknown>, output: () => string, path: string): Promise<void> {
  let dead = false;
  void exited.then(() => (dead = true));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (dead) throw new Error(`server exited before it was ready:\n${output()}`);
    try {
      if ((await fetch(url + path)).ok) return;
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`server at ${url} not ready after 90 s:\n${output()}`);
}

async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  const killed = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(killed);
}

export async function startHelloWorld(): Promise<ChildServer> {
  const port = await freePort();
  const { child, exited, output } = spawnTs('bench/hello-world.ts', { PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilHealthy(url, exited, output, '/');
  return { url, stop: () => stopChild(child, exited) };
}

/** A fresh database on BENCH_DATABASE_URL's (or BENCH_CITUS_URL's) server, dropped by `drop` (like test/kit/server.ts). */
async function createDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mailroom_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  // On a Citus coordinator: the database on every worker too, the workers registered in it
  // (test/kit/citus.ts, which also sets 4 shards per table).
  const workers = await citusWorkers(serverUrl);
  if (workers) await prepareCitusDatabase(serverUrl, workers, name);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      if (workers) await dropCitusDatabase(serverUrl, workers, name);
    },
  };
}

/**
 * Starts Mailroom (`node --import tsx src/main.ts`) on a fresh DATA_DIR and, for `postgres`, a
 * fresh database on BENCH_DATABASE_URL (for `citus`, on BENCH_CITUS_URL's coordinator and its
 * workers, with DATABASE_DISTRIBUTION=citus). The rate limit is lifted so it measures cost, not the cap.
 * `workerProcess` adds a second process with ROLE=worker on the same database (the split
 * deployment of docs/architecture.md); the first then runs whatever ROLE `extraEnv` gives it.
 */
export async function startMailroom(db: DatabaseLabel, extraEnv: Record<string, string> = {}, workerProcess = false): Promise<ChildServer> {
  checkBuild();
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-bench-'));
  let dropDatabase = async () => {};
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000000',
    SESSION_SECRET: randomBytes(32).toString('hex'),
    ...extraEnv,
  };
  if (db === 'postgres' || db === 'citus') {
    const database = await createDatabase(db === 'citus' ? process.env.BENCH_CITUS_URL! : process.env.BENCH_DATABASE_URL!);
    env.DATABASE_URL = database.url;
    if (db === 'citus') env.DATABASE_DISTRIBUTION = 'citus';
    dropDatabase = database.drop;
  } else {
    // A copy of the migrated snapshot the tests use: initdb would cost seconds and measure nothing.
    await copySnapshotTo(join(dataDir, 'pg'));
  }
  const cleanup = async () => {
    await dropDatabase();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${env.PORT}`;
  const workerEnv = { ...env, ROLE: 'worker', PORT: String(await freePort()) };
  let running = spawnTs(MAILROOM_ENTRY, env);
  let worker: ReturnType<typeof spawnTs> | undefined;
  const stopBoth = async () => {
    if (worker) await stopChild(worker.child, worker.exited);
    await stopChild(running.child, running.exited);
  };
  const start = async () => {
    try {
      await waitUntilHealthy(url, running.exited, running.output, '/ready');
      // After the first is ready, so the two never race to migrate the same database.
      if (workerProcess) {
        worker = spawnTs(MAILROOM_ENTRY, workerEnv);
        await waitUntilHealthy(`http://127.0.0.1:${workerEnv.PORT}`, worker.exited, worker.output, '/ready');
      }
    } catch (error) {
      await stopBoth();
      await cleanup();
      throw error;
    }
  };
  await start();
  return {
    url,
    databaseUrl: env.DATABASE_URL,
    stop: async () => {
      await stopBoth();
      await cleanup();
    },
    withServerStopped: async (work) => {
      await stopBoth();
      const database = env.DATABASE_URL ? openPostgres(env.DATABASE_URL) : await openPglite(join(dataDir, 'pg'));
      try {
        await work(database);
      } finally {
        await database.close();
      }
      running = spawnTs(MAILROOM_ENTRY, env);
      await start();
    },
  };
}
