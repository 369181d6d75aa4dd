import pg from 'pg';

/**
 * A Citus coordinator as TEST_DATABASE_URL: each test database is created on the coordinator and
 * on every worker it lists, with the extension on each, and the workers registered in it. The
 * shard count is lowered for tests (every test server creates its own cluster-wide schema; 32
 * shards per table would cost seconds per server and prove nothing more than 4 on two workers).
 */
export const TEST_SHARD_COUNT = 4;

type Node = { host: string; port: number };

const detected = new Map<string, Promise<Node[] | undefined>>();

/** The workers of the Citus coordinator at `adminUrl`, or undefined when it is plain PostgreSQL. */
export function citusWorkers(adminUrl: string): Promise<Node[] | undefined> {
  const known = detected.get(adminUrl);
  if (known) return known;
  const found = (async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      const [ext] = (await client.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'")).rows;
      if (!ext) return undefined;
      const nodes = await client.query<{ nodename: string; nodeport: number }>(
        "SELECT nodename, nodeport FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' ORDER BY nodeport",
      );
      return nodes.rows.map((n) => ({ host: n.nodename, port: n.nodeport }));
    } finally {
      await client.end();
    }
  })();
  detected.set(adminUrl, found);
  return found;
}

function nodeUrl(adminUrl: string, node: Node, database: string): string {
  const url = new URL(adminUrl);
  url.hostname = node.host;
  url.port = String(node.port);
  url.pathname = `/${database}`;
  return url.toString();
}

async function run(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const sql of statements) await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Registering the workers syncs cluster-wide objects to them (`worker_create_or_alter_role` alters
 * the role on each worker), and two databases registered at once on one worker fail there with
 * "tuple concurrently updated". Test processes therefore register one database at a time, under
 * this advisory lock of the coordinator's admin database.
 */
const REGISTER_LOCK = 7_240_019;

async function oneAtATime<T>(adminUrl: string, work: () => Promise<T>): Promise<T> {
  const lock = new pg.Client({ connectionString: adminUrl });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [REGISTER_LOCK]);
    return await work();
  } finally {
    await lock.end(); // ends the session, and with it the lock
  }
}

/** Creates `name` on every worker, then makes the coordinator's `name` a cluster over them. */
export async function prepareCitusDatabase(adminUrl: string, workers: Node[], name: string): Promise<void> {
  await Promise.all(
    workers.map(async (worker) => {
      await run(nodeUrl(adminUrl, worker, 'postgres'), [`CREATE DATABASE ${name}`]);
      await run(nodeUrl(adminUrl, worker, name), ['CREATE EXTENSION citus']);
    }),
  );
  const coordinator = new URL(adminUrl);
  await oneAtATime(adminUrl, () =>
    run(nodeUrl(adminUrl, { host: coordinator.hostname, port: Number(coordinator.port || 5432) }, name), [
      'CREATE EXTENSION citus',
      `ALTER DATABASE ${name} SET citus.shard_count = ${TEST_SHARD_COUNT}`,
      `SELECT citus_set_coordinator_host('${coordinator.hostname}', ${Number(coordinator.port || 5432)})`,
      ...workers.map((w) => `SELECT citus_add_node('${w.host}', ${w.port})`),
    ]),
  );
}

/**
 * Drops `name` on every worker. A worker's database can still be held for a moment after the
 * coordinator's was dropped (a session FORCE does not end: 55006 "being accessed by other users",
 * seen with three test passes on the machine), so the drop is tried again for up to 10 s.
 */
export async function dropCitusDatabase(adminUrl: string, workers: Node[], name: string): Promise<void> {
  await Promise.all(
    workers.map(async (worker) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await run(nodeUrl(adminUrl, worker, 'postgres'), [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`]);
        } catch (error) {
          if ((error as { code?: string }).code !== '55006' || attempt >= 20) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    }),
  );
}
