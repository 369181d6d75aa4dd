import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { Batcher } from '../db/batcher.ts';
import type { Db, Queryable } from '../db/index.ts';
import type { PostgresDb } from '../db/postgres.ts';
import { type CountedKeyRow, findProjectByKeyHash, findProjectsByKeyHashesAndCount, type KeyLookup, type KeyRow, type KeyScope, touchApiKey } from './auth.queries.ts';

export type { KeyScope } from './auth.queries.ts';

export type KeyType = 'public' | 'secret';

export type ResolvedKey = {
  projectId: string;
  projectName: string;
  keyType: KeyType;
  disabled: boolean;
  disabledReason: string | null;
  /** A named key's id (api_keys); undefined for the project's own key pair. */
  keyId?: string;
  /** `sending`: /v1/send, /v1/track, /v1/verify and SMTP submission only. The project's own keys are `full`. */
  scope: KeyScope;
  /** The sender domains a named key may send from; empty: any verified domain of the project. */
  senderDomains: string[];
};

/** A named secret key: `sk_` and, base64url-encoded, its project's id (16 bytes) and 24 random bytes. */
const NAMED_KEY_LENGTH = 3 + Math.ceil((40 * 4) / 3);

export function generateNamedKey(projectId: string): string {
  const id = Buffer.from(projectId.replaceAll('-', ''), 'hex');
  return `sk_${Buffer.concat([id, randomBytes(24)]).toString('base64url')}`;
}

/** The project a named key belongs to (read from the key itself), or undefined for any other key. */
export function projectOfNamedKey(key: string): string | undefined {
  if (key.length !== NAMED_KEY_LENGTH || !key.startsWith('sk_')) return undefined;
  const bytes = Buffer.from(key.slice(3), 'base64url');
  if (bytes.length !== 40) return undefined;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function generateKeyPair() {
  return { publicKey: `pk_${randomBytes(24).toString('base64url')}`, secretKey: `sk_${randomBytes(24).toString('base64url')}` };
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');

export function keyTypeOf(key: string): KeyType | undefined {
  if (key.startsWith('pk_')) return 'public';
  if (key.startsWith('sk_')) return 'secret';
  return undefined;
}

type CachedKey = ResolvedKey;

const MAX_CACHED_KEYS = 10_000;
const LAST_USED_INTERVAL_MS = 60_000;

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
 * (the API reference (Authentication)), so every request checks its key in the database, and the same
 * statement counts it against the project's rate limit (docs/decisions/idempotency-and-rate-limits.md): one round trip for both.
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
  private readonly counter: Batcher<KeyLookup, CountedKeyRow | undefined> | undefined;
  // When this process last wrote each named key's last_used_at.
  private readonly lastUseWritten = new Map<string, number>();

  constructor(
    private readonly db: Db,
    rateLimitWindowMs: number,
  ) {
    if (db.kind === 'postgres') {
      this.counterPool = new pg.Pool({ connectionString: (db as PostgresDb).connectionString, max: 4, options: '-c synchronous_commit=off' });
      this.counterPool.on('error', () => {});
      const pool = wrapPool(this.counterPool);
      this.counter = new Batcher((lookups) => findProjectsByKeyHashesAndCount(pool, lookups, rateLimitWindowMs), { maxInFlight: 1, maxBatch: 200 });
    }
  }

  /**
   * The project of `key`, or undefined for an unknown or revoked key. On PostgreSQL, `usage` is this
   * request's count. The row is found by the key's SHA-256 through a unique index; no clear key is
   * kept to compare with (the hash cannot be steered byte by byte, so its comparison leaks nothing).
   */
  async resolve(key: string): Promise<(ResolvedKey & { usage?: RequestCount }) | undefined> {
    const keyType = keyTypeOf(key);
    if (!keyType || key.length > 200) return undefined;
    const lookup: KeyLookup = { keyType, hash: hashKey(key), projectId: keyType === 'secret' ? projectOfNamedKey(key) : undefined };
    const found = this.counter ? await this.loadAndCount(lookup) : (this.cache.get(lookup.hash) ?? (await this.load(lookup)));
    if (found?.keyId) this.noteUse(found.projectId, found.keyId);
    return found;
  }

  /** Records a named key's last use, at most once a minute per key in this process; never delays the request. */
  private noteUse(projectId: string, keyId: string): void {
    const now = Date.now();
    if (now - (this.lastUseWritten.get(keyId) ?? 0) < LAST_USED_INTERVAL_MS) return;
    if (this.lastUseWritten.size >= MAX_CACHED_KEYS) this.lastUseWritten.clear();
    this.lastUseWritten.set(keyId, now);
    touchApiKey(this.db, projectId, keyId).catch(() => this.lastUseWritten.delete(keyId));
  }

  /** Drops a project's cached keys; call it after any change of a project's keys, status or name commits. */
  forget(projectId: string): void {
    this.generation++;
    for (const [hash, entry] of this.cache) if (entry.projectId === projectId) this.cache.delete(hash);
  }

  async close(): Promise<void> {
    await this.counterPool?.end();
  }

  private async loadAndCount(lookup: KeyLookup) {
    const row = await this.counter!.submit(lookup);
    if (!row) return undefined;
    const usage = row.points === null ? undefined : { count: row.points, msLeft: Math.max(Number(row.ms_left), 0) };
    return { ...toCachedKey(row, lookup.keyType), usage };
  }

  private async load(lookup: KeyLookup): Promise<CachedKey | undefined> {
    const generation = this.generation;
    const row = await findProjectByKeyHash(this.db, lookup);
    if (!row) return undefined;
    const entry = toCachedKey(row, lookup.keyType);
    if (generation !== this.generation) return entry;
    if (this.cache.size >= MAX_CACHED_KEYS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(lookup.hash, entry);
    return entry;
  }
}

function toCachedKey(row: KeyRow, keyType: KeyType): CachedKey {
  return {
    projectId: row.id,
    projectName: row.name,
    keyType,
    disabled: row.disabled,
    disabledReason: row.disabled_reason,
    keyId: row.key_id ?? undefined,
    scope: row.scope,
    senderDomains: row.sender_domains,
  };
}

function wrapPool(pool: pg.Pool): Queryable {
  return {
    query: async <T>(text: string, params?: readonly unknown[]) => (await pool.query(text, params as unknown[])).rows as T[],
    exec: async (text: string) => {
      await pool.query(text);
    },
  };
}

/**
 * Whether a key restricted to `senderDomains` may send from `fromEmail`: the address's domain is
 * one of them or a subdomain of one. No restriction (undefined or empty): any domain, which the
 * send path still requires to be verified in the project.
 */
export function keyMaySendFrom(senderDomains: readonly string[] | undefined, fromEmail: string): boolean {
  if (!senderDomains || senderDomains.length === 0) return true;
  const domain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1).toLowerCase();
  return senderDomains.some((allowed) => domain === allowed || domain.endsWith(`.${allowed}`));
}

/** What SMTP submission knows after checking a key given as the password of AUTH PLAIN or LOGIN. */
export type SubmissionKey = { projectId: string; projectName: string; scope: KeyScope; senderDomains: string[]; keyId?: string };

/**
 * Checks a key for SMTP submission: a secret key of either scope (submission is sending), of a
 * project that is not disabled; the same revocation and rate-limit rules as the HTTP API, at once
 * on every process. Undefined when the key may not submit. The caller checks each message's
 * sender with `keyMaySendFrom(key.senderDomains, from)`.
 */
export async function authenticateSubmissionKey(keys: ApiKeyResolver, key: string): Promise<SubmissionKey | undefined> {
  if (keyTypeOf(key) !== 'secret') return undefined;
  const resolved = await keys.resolve(key);
  if (!resolved || resolved.disabled) return undefined;
  return { projectId: resolved.projectId, projectName: resolved.projectName, scope: resolved.scope, senderDomains: resolved.senderDomains, keyId: resolved.keyId };
}
