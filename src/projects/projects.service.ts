import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import { generateKeyPair, hashKey } from '../auth/api-keys.ts';
import { findMembership, MANAGERS, type Role } from '../auth/auth.queries.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { enqueueDelivery } from '../emails/email-queue.ts';
import { AppError, forbidden, notFound } from '../errors.ts';
import type { ProjectContext } from '../http/auth.ts';
import { updateProjectAudited } from './project-changes.ts';
import { deleteProject, findProjectName, insertProject, type KeyPair, listProjectsOfUser, type ProjectChanges, replaceKeys } from './projects.queries.ts';

type ProjectDeps = Pick<Deps, 'db' | 'keys'>;

/**
 * The caller's role in a project, refusing with 404 when they are not a member (so project ids
 * do not leak) and 403 when their role may not do this.
 */
export async function requireRole(deps: Pick<Deps, 'db'>, projectId: string, userId: string, allowed: readonly Role[], action: string): Promise<Role> {
  const membership = await findMembership(deps.db, projectId, userId);
  if (!membership) throw notFound('Project');
  if (!allowed.includes(membership.role)) throw forbidden(`Only ${allowed.join(' or ')} members can ${action}.`);
  return membership.role;
}

function newKeys(): KeyPair {
  const { publicKey, secretKey } = generateKeyPair();
  return { publicKey, secretKey, publicKeyHash: hashKey(publicKey), secretKeyHash: hashKey(secretKey) };
}

export function createProject(deps: ProjectDeps, userId: string, name: string) {
  return insertProject(deps.db, userId, name, newKeys());
}

/** Every project of the user with their role; keys only where the role may manage them. */
export async function listProjects(deps: ProjectDeps, userId: string) {
  const projects = await listProjectsOfUser(deps.db, userId);
  return projects.map(({ publicKey, secretKey, ...project }) => (MANAGERS.includes(project.role) ? { ...project, publicKey, secretKey } : project));
}

/**
 * Runs a change to a project's keys, status or name and drops the project from the key cache once it
 * commits, so old keys and a disabled project are refused at once (the API reference (Authentication)).
 */
async function changeKeysOrStatus<T>(deps: ProjectDeps, projectId: string, work: (tx: Queryable) => Promise<T>): Promise<T> {
  const result = await deps.db.transaction(work);
  deps.keys.forget(projectId);
  return result;
}

export async function changeProject(deps: ProjectDeps & Pick<Deps, 'queue'>, projectId: string, userId: string, changes: ProjectChanges) {
  const role = await requireRole(deps, projectId, userId, MANAGERS, 'change project settings');
  // The key cache also holds the name (GET /v1/whoami), so any change goes through the cache.
  const project = await changeKeysOrStatus(deps, projectId, (tx) => updateProjectAudited(tx, projectId, { id: userId, role }, changes));
  if (!project) throw notFound('Project');
  // Resumed marketing mail is due now: a delivery run takes it.
  if (changes.marketingPaused === false) await enqueueDelivery(deps.queue);
  return project;
}

export async function regenerateKeys(deps: ProjectDeps, projectId: string, userId: string) {
  await requireRole(deps, projectId, userId, MANAGERS, 'regenerate API keys');
  const keys = newKeys();
  const replaced = await changeKeysOrStatus(deps, projectId, async (tx) => {
    const done = await replaceKeys(tx, projectId, keys);
    if (done) await recordAudit(tx, projectId, { actorId: userId, action: 'project.keys_rotated' });
    return done;
  });
  if (!replaced) throw notFound('Project');
  return { publicKey: keys.publicKey, secretKey: keys.secretKey };
}

export async function removeProject(deps: ProjectDeps, projectId: string, userId: string) {
  await requireRole(deps, projectId, userId, ['OWNER'], 'delete the project');
  const deleted = await changeKeysOrStatus(deps, projectId, (tx) => deleteProject(tx, projectId));
  if (!deleted) throw notFound('Project');
}

/** GET /v1/whoami: which project a key (or session + X-Project-Id) resolves to. */
export async function whoami(deps: Pick<Deps, 'db'>, project: ProjectContext) {
  const projectName = project.name ?? (await findProjectName(deps.db, project.id));
  if (projectName === undefined) throw new AppError('INVALID_API_KEY');
  return { projectId: project.id, projectName, keyType: project.via === 'secret' ? ('secret' as const) : ('session' as const) };
}
