import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { loadConfig } from '../../src/config.ts';
import { loadMigrations, type Migration, migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { PACKAGE_ROOT } from '../../src/paths.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { citusWorkers, dropCitusDatabase, prepareCitusDatabase } from './citus.ts';
import { takePooledCitusDatabase } from './citus-pool.ts';
import { type DnsServer, startDnsServer } from './dns.ts';
import { entryArgs } from './entry.ts';
import { copySnapshotTo, removeTree } from './pglite-snapshot.ts';

export type TestServer = RunningServer & { dataDir: string; env: Record<string, string> };

/** Set in CI's second pass: run every test against this real PostgreSQL. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

function databaseUrl(name: string): string {
  const url = new URL(TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Names databases made for one set of migrations. */
function migrationsDigest(migrations: Migration[]): string {
  return createHash('sha256')
    .update(migrations.map((m) => `${m.version}:${m.checksum}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
}

// Every test process takes this lock of the admin database while it makes the migrated template.
const TEMPLATE_LOCK = 7_240_021;

/**
 * On plain PostgreSQL, a database holding every migration, named after their checksums and made
 * once per set of migrations (a copy takes a fraction of the time the migrations do). The
 * servers still run `migrate()` at start-up, which finds everything applied. Citus cannot copy
 * a database with its distributed metadata: its test databases come from a pool (./citus-pool.ts).
 */
async function migratedTemplate(admin: pg.Client): Promise<string> {
  const migrations = loadMigrations();
  const name = `mailroom_template_${migrationsDigest(migrations)}`;
  await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
  try {
    if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount) return name;
    const building = `${name}_building`;
    await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${building}`);
    const db = openPostgres(databaseUrl(building), { poolSize: 1 });
    try {
      await migrate(db, migrations);
    } finally {
      await db.close();
    }
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
    return name;
  } finally {
    await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK]);
  }
}

/**
 * A fresh database on TEST_DATABASE_URL's server, dropped by the returned function: on plain
 * PostgreSQL a copy of the migrated template, on Citus an emptied database of the pool, unless
 * `empty` is asked for.
 */
export async function createTestDatabase({ empty = false } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  if (!TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is not set');
  const workers = await citusWorkers(TEST_DATABASE_URL);
  if (workers && !empty) {
    const migrations = loadMigrations();
    const pooled = await takePooledCitusDatabase(TEST_DATABASE_URL, workers, migrations, migrationsDigest(migrations));
    return { url: databaseUrl(pooled.name), drop: pooled.release };
  }
  const name = `mailroom_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    if (workers || empty) await admin.query(`CREATE DATABASE ${name}`);
    else await admin.query(`CREATE DATABASE ${name} TEMPLATE ${await migratedTemplate(admin)}`);
  } finally {
    await admin.end();
  }
  if (workers) await prepareCitusDatabase(TEST_DATABASE_URL, workers, name);
  return {
    url: databaseUrl(name),
    // A drop that fails is reported, not thrown: a throw here would skip the rest of a test file's
    // `after` (its SMTP and DNS servers stay open and the file never exits). A database left
    // behind changes no result; `.ci/run` drops the leftovers before a Citus pass.
    drop: async () => {
      try {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        try {
          await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        } finally {
          await client.end();
        }
        if (workers) await dropCitusDatabase(TEST_DATABASE_URL, workers, name);
      } catch (error) {
        console.error(`test database ${name} was not dropped: ${(error as Error).message}`);
      }
    },
  };
}

/**
 * Prepares the environment of a test server: a fresh DATA_DIR (holding a copy of the migrated
 * PGlite snapshot) or, with TEST_DATABASE_URL, a fresh PostgreSQL database.
 */
export async function prepareEnvironment(overrides: Record<string, string> = {}, { emptyDatabase = false } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'mailroom-test-'));
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SESSION_SECRET: randomBytes(32).toString('hex'),
    SHUTDOWN_TIMEOUT_SECONDS: '10',
    ...overrides,
  };
  let dropDatabase = async () => {};
  // On a Citus coordinator, every server of the tests distributes its tables.
  if (TEST_DATABASE_URL && (await citusWorkers(TEST_DATABASE_URL)) && !('DATABASE_DISTRIBUTION' in overrides)) env.DATABASE_DISTRIBUTION = 'citus';
  if (TEST_DATABASE_URL && !('DATABASE_URL' in overrides)) {
    const database = await createTestDatabase({ empty: emptyDatabase });
    env.DATABASE_URL = database.url;
    dropDatabase = database.drop;
  } else if (!env.DATABASE_URL) {
    await copySnapshotTo(join(dataDir, 'pg'));
  }
  const cleanup = async () => {
    await dropDatabase();
    await removeTree(dataDir);
  };
  return { env, dataDir, cleanup };
}

/** Starts the real server in this process on a free port. `close()` also removes its data. */
export async function startTestServer(overrides: Record<string, string> = {}): Promise<TestServer> {
  const { env, dataDir, cleanup } = await prepareEnvironment(overrides);
  const server = await startServer(loadConfig(env));
  return {
    ...server,
    dataDir,
    env,
    close: async () => {
      await server.close();
      await cleanup();
    },
  };
}

export type SpawnedServer = {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Resolves with the exit code once the process ends. */
  exited: Promise<number | null>;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
};

/**
 * Starts the server as a separate OS process (`src/main`, see ./entry.ts), for tests that
 * kill a process or run several on one database. `env` must hold DATA_DIR and the database.
 */
export async function spawnServer(env: Record<string, string>): Promise<SpawnedServer> {
  const child = spawn(process.execPath, entryArgs('src/main'), {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    // A server that did not start is killed, so it cannot keep the test process alive. The wait is
    // generous: a first start on Citus migrates and distributes every table while other passes run.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within 120 s:\n${output}`));
    }, 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"port":(\d+),"msg":"mailroom started"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(`http://127.0.0.1:${match[1]}`);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited before starting:\n${output}`));
    });
  });
  return {
    url,
    child,
    output: () => output,
    exited,
    stop: (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** A test server whose DNS_SERVERS is a fresh test DNS server (test/kit/dns.ts); `close()` stops both. */
export async function startTestServerWithDns(overrides: Record<string, string> = {}): Promise<{ server: TestServer; dns: DnsServer }> {
  const dns = await startDnsServer();
  const server = await startTestServer({ DNS_SERVERS: dns.address, ...overrides });
  const close = server.close;
  server.close = async () => {
    await close();
    await dns.close();
  };
  return { server, dns };
}
