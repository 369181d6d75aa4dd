import pg from 'pg';
import { distributeForCitus } from '../../src/db/distribution.ts';
import { type Migration, migrate } from '../../src/db/migrate.ts';
import { openPostgres } from '../../src/db/postgres.ts';
import { dropCitusDatabase, prepareCitusDatabase } from './citus.ts';

/**
 * Citus test databases are costly to make: a database and the extension on every node, then every
 * table created and distributed (15–30 s each on two workers while other passes run), and a pass
 * starts a server about 150 times. So the test processes of a Citus pass share a pool of migrated,
 * distributed databases: one is held by one test database at a time (a session advisory lock of
 * the coordinator's admin database, released with the session, so a killed test process frees
 * its slot), emptied when it is taken, and kept when it is given back.
 */

// Held (key, slot) in the admin database while slot `slot` is in use.
const POOL_LOCK = 7_240_023;
const SLOTS = 64;
// Where a pooled database keeps what it held right after its migrations: the public tables and the
// rows the migrations inserted. Not in `public`, which the server distributes.
const KIT_SCHEMA = 'mailroom_test_kit';

type Node = { host: string; port: number };

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Takes a free pooled database for the migrations whose digest is `digest`: an existing one is
 * emptied back to its state after the migrations, a new one is made, migrated and distributed.
 * `release` gives it back once every connection to it is closed.
 */
export async function takePooledCitusDatabase(adminUrl: string, workers: Node[], migrations: Migration[], digest: string): Promise<{ name: string; release: () => Promise<void> }> {
  const lock = new pg.Client({ connectionString: adminUrl });
  await lock.connect();
  try {
    let slot = -1;
    for (let candidate = 0; candidate < SLOTS && slot < 0; candidate++) {
      const [row] = (await lock.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS taken', [POOL_LOCK, candidate])).rows;
      if (row!.taken) slot = candidate;
    }
    if (slot < 0) throw new Error(`all ${SLOTS} pooled Citus test databases are in use`);
    const name = `mailroom_test_pool_${digest}_${slot}`;
    const exists = (await lock.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    if (!(exists && (await reset(adminUrl, name)))) {
      if (exists) await drop(adminUrl, workers, name);
      await make(adminUrl, workers, name, migrations);
    }
    return { name, release: () => lock.end() };
  } catch (error) {
    await lock.end();
    throw error;
  }
}

async function make(adminUrl: string, workers: Node[], name: string, migrations: Migration[]): Promise<void> {
  await withClient(adminUrl, (admin) => admin.query(`CREATE DATABASE ${name}`));
  await prepareCitusDatabase(adminUrl, workers, name);
  const db = openPostgres(databaseUrl(adminUrl, name), { poolSize: 1 });
  try {
    await migrate(db, migrations);
    await distributeForCitus(db);
  } finally {
    await db.close();
  }
  // Recorded last: a database without this record was not finished and is made again.
  await withClient(databaseUrl(adminUrl, name), async (client) => {
    await client.query(`CREATE SCHEMA ${KIT_SCHEMA}`);
    await client.query(`CREATE TABLE ${KIT_SCHEMA}.seeds (table_name text PRIMARY KEY, rows jsonb NOT NULL)`);
    // The schemas there are before any server starts: a server makes others (the job queue's), which
    // hold its jobs and schedules and go when the database is taken again.
    await client.query(`CREATE TABLE ${KIT_SCHEMA}.schemas AS SELECT nspname AS name FROM pg_namespace`);
    for (const table of await publicTables(client)) {
      await client.query(`INSERT INTO ${KIT_SCHEMA}.seeds (table_name, rows) SELECT $1, coalesce(jsonb_agg(to_jsonb(t)), '[]') FROM public.${quote(table)} t`, [table]);
    }
  });
}

/**
 * Empties `name` back to its state after the migrations. False when it cannot be: it was never
 * finished, or a test left its schema changed (a table more or less than the migrations made).
 */
async function reset(adminUrl: string, name: string): Promise<boolean> {
  return withClient(databaseUrl(adminUrl, name), async (client) => {
    const recorded = await client
      .query<{ table_name: string; rows: Record<string, unknown>[] }>(`SELECT table_name, rows FROM ${KIT_SCHEMA}.seeds`)
      .then((result) => result.rows.sort((a, b) => (a.table_name < b.table_name ? -1 : 1)))
      .catch(() => undefined);
    if (!recorded) return false;
    const tables = await publicTables(client);
    if (tables.join() !== recorded.map((r) => r.table_name).join()) return false;
    // A session the previous holder left behind would hold locks the TRUNCATE waits on.
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    const made = await client
      .query<{ name: string }>(`SELECT nspname AS name FROM pg_namespace WHERE nspname NOT IN (SELECT name FROM ${KIT_SCHEMA}.schemas)`)
      .then((result) => result.rows)
      .catch(() => undefined);
    if (!made) return false;
    for (const { name: schema } of made) await client.query(`DROP SCHEMA ${quote(schema)} CASCADE`);
    await client.query('BEGIN');
    await client.query(
      `TRUNCATE ${tables
        .filter((t) => t !== 'schema_migrations')
        .map(quote)
        .join(', ')} RESTART IDENTITY CASCADE`,
    );
    for (const { table_name, rows } of recorded) {
      if (table_name === 'schema_migrations' || rows.length === 0) continue;
      const columns = await insertableColumns(client, table_name);
      await client.query(
        `INSERT INTO public.${quote(table_name)} (${columns.map(quote).join(', ')})
         SELECT ${columns.map(quote).join(', ')} FROM jsonb_populate_recordset(NULL::public.${quote(table_name)}, $1)`,
        [JSON.stringify(rows)],
      );
    }
    await client.query('COMMIT');
    return true;
  });
}

async function drop(adminUrl: string, workers: Node[], name: string): Promise<void> {
  await withClient(adminUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  await dropCitusDatabase(adminUrl, workers, name);
}

async function publicTables(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`,
  );
  return rows.map((r) => r.name).sort();
}

async function insertableColumns(client: pg.Client, table: string): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name = $1 AND is_generated = 'NEVER' AND identity_generation IS DISTINCT FROM 'ALWAYS'
     ORDER BY ordinal_position`,
    [table],
  );
  return rows.map((r) => r.name);
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
