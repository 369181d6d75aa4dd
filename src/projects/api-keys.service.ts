import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import { generateNamedKey, hashKey, type KeyScope } from '../auth/api-keys.ts';
import { MANAGERS } from '../auth/auth.queries.ts';
import type { Deps } from '../deps.ts';
import { notFound } from '../errors.ts';
import { type ApiKeyRow, insertApiKey, listApiKeys, revokeApiKey } from './api-keys.queries.ts';
import { requireRole } from './projects.service.ts';

type KeyDeps = Pick<Deps, 'db' | 'keys'>;

/** How many characters of a key its list entry shows (`sk_` and the start of the project id). */
const SHOWN_START = 10;

const toApiKey = (row: ApiKeyRow) => ({
  id: row.id,
  name: row.name,
  scope: row.scope,
  senderDomains: row.senderDomains,
  keyStart: row.keyStart,
  createdAt: row.createdAt.toISOString(),
  lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
});

export type NewApiKey = { name: string; scope: KeyScope; senderDomains?: string[] };

/** POST /users/@me/projects/{id}/api-keys (OWNER or ADMIN): the key is in this answer only. */
export async function createApiKey(deps: KeyDeps, projectId: string, userId: string, input: NewApiKey) {
  await requireRole(deps, projectId, userId, MANAGERS, 'manage API keys');
  const key = generateNamedKey(projectId);
  const senderDomains = [...new Set((input.senderDomains ?? []).map((domain) => domain.trim().toLowerCase()))];
  const row = await deps.db.transaction(async (tx) => {
    const created = await insertApiKey(tx, projectId, { name: input.name, scope: input.scope, senderDomains, keyHash: hashKey(key), keyStart: key.slice(0, SHOWN_START) });
    await recordAudit(tx, projectId, { actorId: userId, action: 'project.api_key_created', details: { keyId: created.id, name: created.name, scope: created.scope } });
    return created;
  });
  return { ...toApiKey(row), key };
}

/** GET /users/@me/projects/{id}/api-keys (OWNER or ADMIN): names, scopes and last use, never the keys. */
export async function listProjectApiKeys(deps: KeyDeps, projectId: string, userId: string) {
  await requireRole(deps, projectId, userId, MANAGERS, 'manage API keys');
  return { data: (await listApiKeys(deps.db, projectId)).map(toApiKey) };
}

/** DELETE /users/@me/projects/{id}/api-keys/{keyId} (OWNER or ADMIN): the key stops working at once, on every process. */
export async function revokeProjectApiKey(deps: KeyDeps, projectId: string, userId: string, keyId: string): Promise<void> {
  await requireRole(deps, projectId, userId, MANAGERS, 'manage API keys');
  const revoked = await deps.db.transaction(async (tx) => {
    const row = await revokeApiKey(tx, projectId, keyId);
    if (row) await recordAudit(tx, projectId, { actorId: userId, action: 'project.api_key_revoked', details: { keyId: row.id, name: row.name } });
    return row;
  });
  // The embedded database's key cache (src/auth/api-keys.ts) drops the project's keys after the commit.
  deps.keys.forget(projectId);
  if (!revoked) throw notFound('API key');
}
