import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Db, Queryable } from './db.ts';

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

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(text: string, params?: readonly unknown[]) {
      const result = params?.length
        ? await client.query({ name: statementName(text), text, values: params as unknown[] })
        : await client.query(text);
      return result.rows as T[];
    },
    async exec(text: string) {
      await client.query(text);
    },
  };
}

export interface PostgresDb extends Db {
  readonly pool: pg.Pool;
  readonly connectionString: string;
}

export function openPostgres(connectionString: string, options: { poolSize?: number } = {}): PostgresDb {
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, types: { getTypeParser: typeParser } as pg.CustomTypesConfig });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const root = wrap(pool);

  return {
    kind: 'postgres',
    pool,
    connectionString,
    query: root.query,
    exec: root.exec,
    async transaction(work) {
      const client = await pool.connect();
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
    close: () => pool.end(),
  };
}
