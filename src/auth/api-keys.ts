import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import pg from 'pg';
import type { Db, Queryable } from '../db/index.ts';
import type { PostgresDb } from '../db/postgres.ts';
import { Batcher } from '../db/batcher.ts';
import { type CountedKeyRow, findProjectByKeyHash, findProjectsByKeyHashesAndCount, type KeyRow } from './auth.queries.ts';

export type KeyType = 'public' | 'secret';

export type ResolvedKey = {
  projectId: string;
  projectName: string;
  keyType: KeyType;
  disabled: boolean;
  disabledReason: string | null;
};

export function generateKeyPair() {
  return { publicKey: `pk_${randomBytes(24).toString('base64url')}`, secretKey: `sk_${randomBytes(24).toString('base64url')}` };
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export function keyTypeOf(key: string): KeyType | undefined {
  if (key.startsWith('pk_')) return 'public';
  if (key.startsWith('sk_')) return 'secret';
  return undefined;
}

type CachedKey = ResolvedKey & { key: string };

const MAX_CACHED_KEYS = 10_000;

/** A request counted against its project's rate limit while its key was checked (PostgreSQL). */
export type RequestCount = { count: number; msLeft: number };

/**
 * Resolves API keys to projects.
 *
 * On the embedded database one process owns the data, so every change of keys or status passes
 * through this process: keys are cached and `forget` (called right after the change commits)
 * keeps the cache exact; the rate limit is counted in memory (http/rate-limit.ts).
 *
 * On PostgreSQL several processes share the data and a key must stop working everywhere at once
 * (api.md Authentication 7), so every request checks its key in the database, and the same
 * statement counts it against the project's rate limit (contract §13): one round trip for both.
 * That statement runs on its own small pool with synchronous_commit off, because every request of
 * a project updates the same counter row and waiting for a WAL flush each time serialised them;
 * a crash may forget the last few milliseconds of counts, never a key change (those commit on the
 * main pool). Requests that arrive while a check runs are checked and counted together by the next
 * one (group commit, src/db/batcher.ts): still one statement after the request arrived, so a key
 * change committed before it is always seen. A cache invalidated by LISTEN/NOTIFY was tried and raced: NOTIFY is delivered after
 * COMMIT returns, so another process could accept a rotated key once.
 */
export class ApiKeyResolver {
  private readonly cache = new Map<string, CachedKey>();
  // Bumped on every invalidation: a lookup that raced with one must not cache what it read.
  private generation = 0;
  private readonly counterPool: pg.Pool | undefined;
  private readonly counter: Batcher<{ keyType: KeyType; hash: string }, CountedKeyRow | undefined> | undefined;

  constructor(
    private readonly db: Db,
    private readonly rateLimitWindowMs: number,
  ) {
    if (db.kind === 'postgres') {
      this.counterPool = new pg.Pool({ connectionString: (db as PostgresDb).connectionString, max: 4, options: '-c synchronous_commit=off' });
      this.counterPool.on('error', () => {});
      const pool = wrapPool(this.counterPool);
      this.counter = new Batcher((lookups) => findProjectsByKeyHashesAndCount(pool, lookups, rateLimitWindowMs), { maxInFlight: 1, maxBatch: 200 });
    }
  }

  /** The project of `key`, or undefined for an unknown key. On PostgreSQL, `usage` is this request's count. */
  async resolve(key: string): Promise<(ResolvedKey & { usage?: RequestCount }) | undefined> {
    const keyType = keyTypeOf(key);
    if (!keyType || key.length > 200) return undefined;
    const hash = hashKey(key);
    const found = this.counter ? await this.loadAndCount(hash, keyType) : (this.cache.get(hash) ?? (await this.load(hash, keyType)));
    if (!found) return undefined;
    // The lookup is by hash; compare the key itself in constant time as well.
    const a = Buffer.from(found.key);
    const b = Buffer.from(key);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
    return found;
  }

  /** Drops a project's cached keys; call it after any change of a project's keys, status or name commits. */
  forget(projectId: string): void {
    this.generation++;
    for (const [hash, entry] of this.cache) if (entry.projectId === projectId) this.cache.delete(hash);
  }

  async close(): Promise<void> {
    await this.counterPool?.end();
  }

  private async loadAndCount(hash: string, keyType: KeyType) {
    const row = await this.counter!.submit({ keyType, hash });
    if (!row) return undefined;
    const usage = row.points === null ? undefined : { count: row.points, msLeft: Math.max(Number(row.ms_left), 0) };
    return { ...toCachedKey(row, keyType), usage };
  }

  private async load(hash: string, keyType: KeyType): Promise<CachedKey | undefined> {
    const generation = this.generation;
    const row = await findProjectByKeyHash(this.db, keyType, hash);
    if (!row) return undefined;
    const entry = toCachedKey(row, keyType);
    if (generation !== this.generation) return entry;
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(hash, entry);
    return entry;
  }
}

function toCachedKey(row: KeyRow, keyType: KeyType): CachedKey {
  return { projectId: row.id, projectName: row.name, keyType, disabled: row.disabled, disabledReason: row.disabled_reason, key: row.key };
}

function wrapPool(pool: pg.Pool): Queryable {
  return {
    query: async <T>(text: string, params?: readonly unknown[]) => (await pool.query(text, params as unknown[])).rows as T[],
    exec: async (text: string) => {
      await pool.query(text);
    },
  };
}
