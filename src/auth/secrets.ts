import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../db/index.ts';

/**
 * Secrets at rest (docs/security.md): the project secret keys (shown again to OWNER and ADMIN), DKIM
 * private keys, webhook signing secrets and users' TOTP secrets are stored as AES-256-GCM ciphertexts under a
 * key-encryption key from configuration (SECRETS_KEY), so a database dump alone reveals none of
 * them. A stored value reads `enc:v1:<key id>:<iv>:<tag>:<ciphertext>` (base64url); the key id
 * (8 hex digits of the key's SHA-256) names the key that sealed it, so after a rotation the previous
 * key (SECRETS_KEY_PREVIOUS) still opens what the rotation has not reached yet. The column's name
 * is bound in as additional data: a ciphertext copied into another column does not open.
 *
 * The keyring is process-wide, set once at start-up from the configuration, because the values are
 * sealed and opened in the queries of several capabilities.
 */
const PREFIX = 'enc:v1:';

type Key = { id: string; bytes: Buffer };

const ring = new Map<string, Key>();
let current: Key | undefined;

function keyFrom(raw: string): Key {
  const bytes = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64url');
  if (bytes.length !== 32) throw new Error('A secrets key must be 32 bytes');
  return { id: createHash('sha256').update(bytes).digest('hex').slice(0, 8), bytes };
}

/** Sets the key that seals (and opens), and the previous one that only opens. */
export function configureSecrets(secretsKey: string, previous?: string): void {
  current = keyFrom(secretsKey);
  ring.set(current.id, current);
  if (previous) {
    const old = keyFrom(previous);
    ring.set(old.id, old);
  }
}

/** The id of the key that seals now. */
export function currentSecretsKeyId(): string {
  if (!current) throw new Error('configureSecrets was not called');
  return current.id;
}

export const isSealed = (stored: string) => stored.startsWith(PREFIX);

/** Encrypts `value` for the column `purpose` (`table.column`). */
export function sealSecret(value: string, purpose: string): string {
  if (!current) throw new Error('configureSecrets was not called');
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', current.bytes, iv);
  cipher.setAAD(Buffer.from(purpose));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return `${PREFIX}${current.id}:${iv.toString('base64url')}:${cipher.getAuthTag().toString('base64url')}:${ciphertext.toString('base64url')}`;
}

/** The clear value of a stored secret. A value stored before encryption (not yet resealed) is returned as it is. */
export function openSecret(stored: string, purpose: string): string {
  if (!isSealed(stored)) return stored;
  const [keyId, iv, tag, ciphertext] = stored.slice(PREFIX.length).split(':');
  const key = ring.get(keyId ?? '');
  if (!key || !iv || !tag || ciphertext === undefined) {
    throw new Error(`A stored secret (${purpose}) was sealed with key ${keyId}, which is not configured: set SECRETS_KEY_PREVIOUS to the key before the rotation`);
  }
  const decipher = createDecipheriv('aes-256-gcm', key.bytes, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(purpose));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}

export const openNullableSecret = (stored: string | null, purpose: string) => (stored === null ? null : openSecret(stored, purpose));

/**
 * Every column that holds a secret, with the columns that name a row. On Citus each UPDATE names its
 * project (the distributed tables' rows are found by project_id and id).
 */
const SECRET_COLUMNS = [
  { table: 'projects', keys: ['id'], columns: ['secret_key'] },
  { table: 'users', keys: ['id'], columns: ['totp_secret'] },
  { table: 'domains', keys: ['project_id', 'id'], columns: ['private_key'] },
  { table: 'system_dkim_keys', keys: ['domain'], columns: ['private_key'] },
  { table: 'webhook_endpoints', keys: ['project_id', 'id'], columns: ['secret', 'previous_secret'] },
] as const;

// A rotated webhook secret moves to previous_secret as it is (SQL copies the ciphertext), so both
// columns are sealed for the same purpose.
const purposeOf = (table: string, column: string) => (table === 'webhook_endpoints' ? 'webhook_endpoints.secret' : `${table}.${column}`);

/**
 * Seals every stored secret that is in clear or sealed by another key than the current one, in
 * place: run at start-up (the first start after upgrading encrypts the existing rows) and by
 * `npm run secrets:rotate`. Idempotent; rows are read in pages of 500 and each is written with its
 * own statement that changes it only if it still holds what was read (a concurrent change wins).
 */
export async function resealSecrets(db: Queryable): Promise<Record<string, number>> {
  const keyId = currentSecretsKeyId();
  // Stale: in clear, or sealed by a configured key other than the current one. A value sealed by a
  // key this process does not have is left alone (its use fails, naming the key), never a crash here.
  const olderKeys = [...ring.keys()].filter((id) => id !== keyId).map((id) => `${PREFIX}${id}:%`);
  const counts: Record<string, number> = {};
  for (const { table, keys, columns } of SECRET_COLUMNS) {
    let count = 0;
    // Names come from the fixed list above, never from input.
    const stale = columns.map((column) => `(${column} IS NOT NULL AND (${column} NOT LIKE 'enc:%' OR ${column} LIKE ANY($1::text[])))`).join(' OR ');
    for (;;) {
      const rows = await db.query<Record<string, string | null>>(`SELECT ${[...keys, ...columns].join(', ')} FROM ${table} WHERE ${stale} LIMIT 500`, [olderKeys]);
      if (rows.length === 0) break;
      for (const row of rows) {
        const sets = columns.map((column, i) => `${column} = $${i + 1}`).join(', ');
        const where = [
          ...keys.map((key, i) => `${key} = $${columns.length + i + 1}`),
          ...columns.map((column, i) => `${column} IS NOT DISTINCT FROM $${columns.length + keys.length + i + 1}`),
        ].join(' AND ');
        const resealed = columns.map((column) => {
          const value = row[column] ?? null;
          const purpose = purposeOf(table, column);
          const known = !isSealed(value ?? '') || ring.has(value!.slice(PREFIX.length, PREFIX.length + 8));
          return value === null || value.startsWith(`${PREFIX}${keyId}:`) || !known ? value : sealSecret(openSecret(value, purpose), purpose);
        });
        await db.query(`UPDATE ${table} SET ${sets} WHERE ${where}`, [...resealed, ...keys.map((key) => row[key]), ...columns.map((column) => row[column] ?? null)]);
        count++;
      }
    }
    counts[table] = count;
  }
  return counts;
}
