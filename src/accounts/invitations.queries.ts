import type { Role } from '../auth/auth.queries.ts';
import type { Queryable } from '../db/index.ts';

export type Invitation = { email: string; role: Role; createdAt: string };

/** Invites an address (again): a second invitation replaces the role and the inviter of the first. */
export async function upsertInvitation(db: Queryable, projectId: string, email: string, role: Role, invitedBy: string): Promise<Invitation> {
  const [row] = await db.query<{ email: string; role: Role; created_at: Date | string }>(
    `INSERT INTO project_invitations (project_id, email, role, invited_by) VALUES ($1, $2, $3, $4)
     ON CONFLICT (project_id, email) DO UPDATE SET role = EXCLUDED.role, invited_by = EXCLUDED.invited_by, created_at = EXCLUDED.created_at
     RETURNING email, role, created_at`,
    [projectId, email, role, invitedBy],
  );
  return { email: row!.email, role: row!.role, createdAt: new Date(row!.created_at).toISOString() };
}

/** What the invitation mail says: the project's name and who invited (absent when the inviter is gone). */
export async function findInvitationMail(db: Queryable, projectId: string, email: string) {
  const [row] = await db.query<{ project_name: string; inviter: string | null; role: Role }>(
    `SELECT p.name AS project_name, u.email AS inviter, i.role
       FROM project_invitations i JOIN projects p ON p.id = i.project_id LEFT JOIN users u ON u.id = i.invited_by
      WHERE i.project_id = $1 AND i.email = $2`,
    [projectId, email],
  );
  return row;
}

/**
 * Makes the account a member of every project that invited its (now confirmed) address, with the
 * invited role, and drops those invitations. A membership it already has is kept as it is.
 */
export async function acceptInvitations(tx: Queryable, userId: string, email: string): Promise<{ project_id: string; role: Role }[]> {
  return tx.query<{ project_id: string; role: Role }>(
    `WITH invited AS (DELETE FROM project_invitations WHERE email = $2 RETURNING project_id, role)
     INSERT INTO project_members (project_id, user_id, role)
     SELECT project_id, $1, role FROM invited
     ON CONFLICT (project_id, user_id) DO NOTHING
     RETURNING project_id, role`,
    [userId, email],
  );
}
