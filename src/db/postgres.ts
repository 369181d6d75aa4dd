import pg from 'pg';
import type { Db, Queryable } from './db.ts';

const INT8 = 20;
const NUMERIC = 1700;

function typeParser(oid: number, format?: string) {
  if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
  return pg.types.getTypeParser(oid, format as 'text');
}

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<T>(text: string, params?: readonly unknown[]) {
      const result = await client.query(text, params as unknown[] | undefined);
      return result.rows as T[];
    },
    async exec(text: string) {
      await client.query(text);
    },
  };
}

export interface PostgresDb extends Db {
  readonly pool: pg.Pool;
}

export function openPostgres(connectionString: string, options: { poolSize?: number } = {}): PostgresDb {
  const pool = new pg.Pool({ connectionString, max: options.poolSize ?? 10, types: { getTypeParser: typeParser } as pg.CustomTypesConfig });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const root = wrap(pool);
  const listeners = new ListenConnection(connectionString);

  return {
    kind: 'postgres',
    pool,
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
    listen: (channel, onMessage, onReconnect) => listeners.subscribe(channel, onMessage, onReconnect),
    async notify(channel, payload, tx) {
      await (tx ?? root).query('SELECT pg_notify($1, $2)', [channel, payload]);
    },
    async close() {
      await listeners.close();
      await pool.end();
    },
  };
}

type Subscriber = { onMessage: (payload: string) => void; onReconnect?: () => void };

/** One dedicated connection for LISTEN, reconnected when it drops. */
class ListenConnection {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private readonly channels = new Map<string, Set<Subscriber>>();
  private closed = false;

  constructor(private readonly connectionString: string) {}

  async subscribe(channel: string, onMessage: (payload: string) => void, onReconnect?: () => void) {
    const subscriber: Subscriber = { onMessage, onReconnect };
    let set = this.channels.get(channel);
    const isNew = !set;
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(subscriber);
    const client = await this.connect();
    if (isNew) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    return async () => {
      set.delete(subscriber);
    };
  }

  private connect(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (message) => {
      for (const subscriber of this.channels.get(message.channel) ?? []) subscriber.onMessage(message.payload ?? '');
    });
    client.on('error', () => this.dropAndReconnect(client));
    client.on('end', () => this.dropAndReconnect(client));
    await client.connect();
    for (const channel of this.channels.keys()) await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    this.client = client;
    return client;
  }

  private dropAndReconnect(client: pg.Client) {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    const retry = () => {
      if (this.closed) return;
      this.connect()
        .then(() => {
          for (const set of this.channels.values()) for (const s of set) s.onReconnect?.();
        })
        .catch(() => setTimeout(retry, 1000).unref());
    };
    setTimeout(retry, 100).unref();
  }

  async close() {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}
