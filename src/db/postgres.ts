import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { type Db, type Queryable, requestScope } from './db.ts';

/** statement_timeout of the statements an HTTP request runs (requestScope). */
export const API_STATEMENT_TIMEOUT_MS = 10_000;

const INT8 = 20;
const NUMERIC = 1700;

function typeParser(oid: number, format?: string) {
  if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format as 'text');
}

// Parameterised statements are prepared once per connection under a name derived from their
// text, so PostgreSQL parses and plans each of our (fixed) statements once, not on every request.
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `mr_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    if (statementNames.size < 5000) statementNames.set(text, name);
  }
  return name;
}

/** COPY … FROM STDIN of rows in COPY's text format (db.ts, copyText). */
async function copyFrom(client: pg.Pool | pg.PoolClient, table: string, columns: readonly string[], rows: string): Promise<void> {
  // A COPY runs on one connection: from a pool, one taken for it and given back.
  if (client instanceof pg.Pool) {
    const connection = await client.connect();
    try {
      return await copyFrom(connection, table, columns, rows);
    } finally {
      connection.release();
    }
  }
  // pg-copy-streams: a COPY … FROM STDIN query that is a writable stream of its rows.
  await pipeline(Readable.from([Buffer.from(rows)]), client.query(copyStreams.from(`COPY ${table} (${columns.join(', ')}) FROM STDIN`)));
}

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(text: string, params?: readonly unknown[]) {
      const result = params?.length ? await client.query({ name: statementName(text), text, values: params as unknown[] }) : await client.query(text);
      return result.rows as T[];
    },
    async exec(text: string) {
      await client.query(text);
    },
    copyFrom: (table, columns, rows) => copyFrom(client, table, columns, rows),
  };
}

export interface PostgresDb extends Db {
  readonly pool: pg.Pool;
  /** The pool of HTTP requests' statements (statement_timeout set); `pool` serves background work. */
  readonly apiPool: pg.Pool;
  readonly connectionString: string;
}

export function openPostgres(connectionString: string, options: { poolSize?: number; statementTimeoutMs?: number } = {}): PostgresDb {
  const types = { getTypeParser: typeParser } as pg.CustomTypesConfig;
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, types });
  // Connections are opened on demand: a process that serves no HTTP never opens this pool's.
  const apiPool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, types, statement_timeout: options.statementTimeoutMs ?? API_STATEMENT_TIMEOUT_MS });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  apiPool.on('error', () => {});
  const background = wrap(pool);
  const api = wrap(apiPool);
  const current = () => (requestScope.getStore() ? apiPool : pool);

  return {
    kind: 'postgres',
    pool,
    apiPool,
    connectionString,
    query: (text, params) => (requestScope.getStore() ? api : background).query(text, params),
    exec: (text) => (requestScope.getStore() ? api : background).exec(text),
    copyFrom: (table, columns, rows) => copyFrom(current(), table, columns, rows),
    async transaction(work) {
      const client = await current().connect();
      try {
        await client.query('BEGIN');
        const result = await work(wrap(client));
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: async () => {
      await Promise.all([pool.end(), apiPool.end()]);
    },
  };
}
