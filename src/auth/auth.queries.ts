import type { Queryable } from '../db/index.ts';

export type Role = 'OWNER' | 'ADMIN' | 'MEMBER';

export type Membership = { projectId: string; role: Role; disabled: boolean; disabledReason: string | null };

export async function findMembership(db: Queryable, projectId: string, userId: string): Promise<Membership | undefined> {
  const rows = await db.query<Membership>(
    `SELECT p.id AS "projectId", m.role, p.disabled, p.disabled_reason AS "disabledReason"
       FROM project_members m JOIN projects p ON p.id = m.project_id
      WHERE m.project_id = $1 AND m.user_id = $2`,
    [projectId, userId],
  );
  return rows[0];
}

export async function userExists(db: Queryable, userId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM users WHERE id = $1', [userId]);
  return rows.length > 0;
}
