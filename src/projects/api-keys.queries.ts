import type { KeyScope } from '../auth/auth.queries.ts';
import type { Queryable } from '../db/index.ts';

export type ApiKeyRow = {
  id: string;
  name: string;
  scope: KeyScope;
  senderDomains: string[];
  keyStart: string;
  createdAt: Date;
  lastUsedAt: Date | null;
};

const COLUMNS = `id, name, scope, sender_domains AS "senderDomains", key_start AS "keyStart", created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

export async function insertApiKey(
  tx: Queryable,
  projectId: string,
  key: { name: string; scope: KeyScope; senderDomains: string[]; keyHash: string; keyStart: string },
): Promise<ApiKeyRow> {
  const rows = await tx.query<ApiKeyRow>(
    `INSERT INTO api_keys (project_id, name, scope, sender_domains, key_hash, key_start) VALUES ($1, $2, $3, $4::text[], $5, $6) RETURNING ${COLUMNS}`,
    [projectId, key.name, key.scope, key.senderDomains, key.keyHash, key.keyStart],
  );
  return rows[0]!;
}

/** The project's keys that still work, the newest first. */
export async function listApiKeys(db: Queryable, projectId: string): Promise<ApiKeyRow[]> {
  return db.query<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE project_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id LIMIT 500`, [projectId]);
}

/** Revokes a key; false when the project has no such working key. */
export async function revokeApiKey(tx: Queryable, projectId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const rows = await tx.query<ApiKeyRow>(`UPDATE api_keys SET revoked_at = now() WHERE project_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`, [
    projectId,
    keyId,
  ]);
  return rows[0];
}
