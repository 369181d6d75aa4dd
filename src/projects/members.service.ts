import { INVITATION_MAIL_JOB, type InvitationMailData } from '../accounts/invitations.jobs.ts';
import { type Invitation, upsertInvitation } from '../accounts/invitations.queries.ts';
import { insertAuditEntry as recordAudit } from '../audit/audit.queries.ts';
import type { Role } from '../auth/auth.queries.ts';
import { MANAGERS } from '../auth/auth.queries.ts';
import type { Deps } from '../deps.ts';
import { AppError, forbidden, notFound } from '../errors.ts';
import { deleteMember, insertMemberByEmail, listMembers, lockRoles, type Member, updateMemberRole } from './members.queries.ts';
import { requireRole } from './projects.service.ts';

type MemberDeps = Pick<Deps, 'db'>;

/** POST /projects/{id}/members: the member added (201), or the address invited when it has no account (202). */
export type AddMemberResult = { member: Member; invitation?: undefined } | { member?: undefined; invitation: Invitation };

/*
 * Role rules (docs/decisions/accounts.md):
 * - any member may list members; OWNER and ADMIN manage them; MEMBER gets 403;
 * - only an OWNER may grant OWNER, or change or remove another OWNER;
 * - anyone may leave a project (remove themselves);
 * - the last OWNER can be neither demoted nor removed (409), so a project always has an owner.
 */

export async function membersOf(deps: MemberDeps, projectId: string, userId: string) {
  await requireRole(deps, projectId, userId, ['OWNER', 'ADMIN', 'MEMBER'], 'list members');
  return listMembers(deps.db, projectId);
}

/**
 * Adds the account with this address; an address with no account is invited instead
 * (docs/decisions/accounts.md, "Invitations"): the invitation is stored and its mail queued in the
 * same transaction, and the address becomes a member once an account confirms it.
 */
export async function addMember(deps: Pick<Deps, 'db' | 'queue'>, projectId: string, userId: string, email: string, role: Role): Promise<AddMemberResult> {
  const callerRole = await requireRole(deps, projectId, userId, MANAGERS, 'invite members');
  if (role === 'OWNER' && callerRole !== 'OWNER') throw forbidden('Only an OWNER can add another OWNER.');
  const address = email.trim().toLowerCase();
  const result = await deps.db.transaction(async (tx): Promise<AddMemberResult | 'member'> => {
    const added = await insertMemberByEmail(tx, projectId, address, role);
    if (added.member) {
      await recordAudit(tx, projectId, { actorId: userId, action: 'member.added', details: { userId: added.member.userId, email: added.member.email, role } });
      return { member: added.member };
    }
    if (added.user) return 'member';
    const invitation = await upsertInvitation(tx, projectId, address, role, userId);
    await recordAudit(tx, projectId, { actorId: userId, action: 'member.invited', details: { email: address, role } });
    await deps.queue.send<InvitationMailData>(INVITATION_MAIL_JOB, { projectId, email: address }, { tx });
    return { invitation };
  });
  if (result === 'member') throw new AppError('CONFLICT', { message: 'This user is already a member of the project.' });
  return result;
}

const lastOwner = (action: string) => new AppError('CONFLICT', { message: `The last OWNER of a project cannot be ${action}.`, suggestion: 'Make another member OWNER first.' });

/** Loads the locked roles and checks the caller may touch the target's membership. */
function authorize(roles: Map<string, Role>, callerId: string, targetId: string, newRole?: Role) {
  const callerRole = roles.get(callerId);
  if (!callerRole) throw notFound('Project');
  const targetRole = roles.get(targetId);
  const leaving = newRole === undefined && callerId === targetId;
  if (!leaving && !MANAGERS.includes(callerRole)) throw forbidden('Only OWNER or ADMIN members can manage members.');
  if (!targetRole) throw notFound('Member');
  if (!leaving && callerRole !== 'OWNER' && (targetRole === 'OWNER' || newRole === 'OWNER')) {
    throw forbidden('Only an OWNER can grant, change or remove the OWNER role.');
  }
  const owners = [...roles.values()].filter((role) => role === 'OWNER').length;
  return { targetRole, isLastOwner: targetRole === 'OWNER' && owners === 1 };
}

export function changeMemberRole(deps: MemberDeps, projectId: string, callerId: string, targetId: string, role: Role) {
  return deps.db.transaction(async (tx) => {
    const { isLastOwner, targetRole } = authorize(await lockRoles(tx, projectId), callerId, targetId, role);
    if (isLastOwner && role !== 'OWNER') throw lastOwner('demoted');
    const member = await updateMemberRole(tx, projectId, targetId, role);
    if (!member) throw notFound('Member');
    const details = { userId: targetId, email: member.email, from: targetRole, to: role };
    if (targetRole !== role) await recordAudit(tx, projectId, { actorId: callerId, action: 'member.role_changed', details });
    return member;
  });
}

export function removeMember(deps: MemberDeps, projectId: string, callerId: string, targetId: string) {
  return deps.db.transaction(async (tx) => {
    const { isLastOwner, targetRole } = authorize(await lockRoles(tx, projectId), callerId, targetId);
    if (isLastOwner) throw lastOwner('removed');
    await deleteMember(tx, projectId, targetId);
    await recordAudit(tx, projectId, { actorId: callerId, action: 'member.removed', details: { userId: targetId, role: targetRole, left: callerId === targetId } });
  });
}
