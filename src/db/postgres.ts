import { createHash } from 'node:crypto';
import pg from 'pg';
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

/** The part of pg's connection a COPY FROM STDIN writes to (the frontend's CopyData and CopyDone). */
type CopyConnection = { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void };

// CopyData messages of at most this many bytes.
const COPY_CHUNK_BYTES = 256 * 1024;

/**
 * COPY … FROM STDIN on pg's own client: a query whose CopyInResponse is answered with the rows
 * (pg's Query answers it with CopyFail), then CopyDone; the server's CommandComplete and
 * ReadyForQuery end it like any simple query.
 */
class CopyFromQuery extends pg.Query {
  constructor(
    text: string,
    // Not `rows`: pg's Query reads that as the row count of a portal.
    private readonly payload: Buffer,
    done: (error?: Error) => void,
  ) {
    super(text);
    // pg calls back once, with the error or at ReadyForQuery.
    (this as { callback?: (error?: Error) => void }).callback = done;
  }

  handleCopyInResponse(connection: CopyConnection) {
    for (let offset = 0; offset < this.payload.length; offset += COPY_CHUNK_BYTES) connection.sendCopyFromChunk(this.payload.subarray(offset, offset + COPY_CHUNK_BYTES));
    connection.endCopyFrom();
  }
}

async function copyFrom(client: pg.Pool | pg.PoolClient, table: string, columns: readonly string[], rows: string): Promise<void> {
  // A pool's query() would not release its client: the query's own callback replaces the pool's.
  if (client instanceof pg.Pool) {
    const connection = await client.connect();
    try {
      return await copyFrom(connection, table, columns, rows);
    } finally {
      connection.release();
    }
  }
  return new Promise((resolve, reject) => {
    client.query(new CopyFromQuery(`COPY ${table} (${columns.join(', ')}) FROM STDIN`, Buffer.from(rows), (error) => (error ? reject(error) : resolve())));
  });
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
