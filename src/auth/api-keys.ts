import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../db/index.ts';

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

/**
 * Resolves API keys to projects.
 *
 * On the embedded database one process owns the data, so every change of keys or status passes
 * through this process: keys are cached and `forget` (called right after the change commits)
 * keeps the cache exact. On PostgreSQL several processes share the data and a key must stop
 * working everywhere at once (api.md Authentication 7), so every request looks its key up: one
 * unique-index probe. A cache invalidated by LISTEN/NOTIFY was tried and raced: PostgreSQL
 * delivers a notification after COMMIT returns, so another process could still accept the old
 * key for a moment after the rotation had been answered.
 */
export class ApiKeyResolver {
  private readonly cache = new Map<string, CachedKey>();
  private readonly cacheable: boolean;
  // Bumped on every invalidation: a lookup that raced with one must not cache what it read.
  private generation = 0;

  constructor(private readonly db: Db) {
    this.cacheable = db.kind === 'pglite';
  }

  async resolve(key: string): Promise<ResolvedKey | undefined> {
    const keyType = keyTypeOf(key);
    if (!keyType || key.length > 200) return undefined;
    const hash = hashKey(key);
    const cached = this.cache.get(hash) ?? (await this.load(hash, keyType));
    if (!cached) return undefined;
    // The lookup is by hash; compare the key itself in constant time as well.
    const a = Buffer.from(cached.key);
    const b = Buffer.from(key);
    if (a.length !== b.length || !timingSafeEqual(a, b)) return undefined;
    return cached;
  }

  /** Drops a project's cached keys; call it after any change of a project's keys or status commits. */
  forget(projectId: string): void {
    this.generation++;
    for (const [hash, entry] of this.cache) if (entry.projectId === projectId) this.cache.delete(hash);
  }

  private async load(hash: string, keyType: KeyType): Promise<CachedKey | undefined> {
    const generation = this.generation;
    const column = keyType === 'public' ? 'public_key_hash' : 'secret_key_hash';
    const keyColumn = keyType === 'public' ? 'public_key' : 'secret_key';
    const rows = await this.db.query<{ id: string; name: string; key: string; disabled: boolean; disabled_reason: string | null }>(
      `SELECT id, name, ${keyColumn} AS key, disabled, disabled_reason FROM projects WHERE ${column} = $1`,
      [hash],
    );
    const row = rows[0];
    if (!row) return undefined;
    const entry: CachedKey = { projectId: row.id, projectName: row.name, keyType, disabled: row.disabled, disabledReason: row.disabled_reason, key: row.key };
    if (!this.cacheable || generation !== this.generation) return entry;
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(hash, entry);
    return entry;
  }
}
