import type { Role } from '../auth/auth.queries.ts';
import type { Queryable } from '../db/index.ts';

export type Member = { userId: string; email: string; role: Role; createdAt: string };

type RawMember = { user_id: string; email: string; role: Role; created_at: Date };

const toMember = (row: RawMember): Member => ({ userId: row.user_id, email: row.email, role: row.role, createdAt: row.created_at.toISOString() });

export async function listMembers(db: Queryable, projectId: string): Promise<Member[]> {
  const rows = await db.query<RawMember>(
    `SELECT m.user_id, u.email, m.role, m.created_at
       FROM project_members m JOIN users u ON u.id = m.user_id
      WHERE m.project_id = $1
      ORDER BY m.created_at, u.email`,
    [projectId],
  );
  return rows.map(toMember);
}

/**
 * Adds the user with this email in one statement. `user` is undefined when no account has the
 * email; `added` is false when that user was already a member.
 */
export async function insertMemberByEmail(db: Queryable, projectId: string, email: string, role: Role): Promise<{ user?: { id: string; email: string }; member?: Member }> {
  const rows = await db.query<{ id: string; email: string; role: Role | null; created_at: Date | null }>(
    `WITH target AS (SELECT id, email FROM users WHERE email = $2),
          added AS (
            INSERT INTO project_members (project_id, user_id, role)
            SELECT $1, id, $3 FROM target
            ON CONFLICT (project_id, user_id) DO NOTHING
            RETURNING user_id, role, created_at)
     SELECT target.id, target.email, added.role, added.created_at
       FROM target LEFT JOIN added ON added.user_id = target.id`,
    [projectId, email, role],
  );
  const row = rows[0];
  if (!row) return {};
  const user = { id: row.id, email: row.email };
  if (!row.role || !row.created_at) return { user };
  return { user, member: toMember({ user_id: row.id, email: row.email, role: row.role, created_at: row.created_at }) };
}

/** The project's roles, locked until the transaction ends so role changes are decided one at a time. */
export async function lockRoles(tx: Queryable, projectId: string): Promise<Map<string, Role>> {
  const rows = await tx.query<{ user_id: string; role: Role }>('SELECT user_id, role FROM project_members WHERE project_id = $1 ORDER BY user_id FOR UPDATE', [projectId]);
  return new Map(rows.map((row) => [row.user_id, row.role]));
}

export async function updateMemberRole(tx: Queryable, projectId: string, userId: string, role: Role): Promise<Member | undefined> {
  const rows = await tx.query<RawMember>(
    `UPDATE project_members m SET role = $3
       FROM users u
      WHERE m.project_id = $1 AND m.user_id = $2 AND u.id = m.user_id
      RETURNING m.user_id, u.email, m.role, m.created_at`,
    [projectId, userId, role],
  );
  return rows[0] ? toMember(rows[0]) : undefined;
}

export async function deleteMember(tx: Queryable, projectId: string, userId: string): Promise<boolean> {
  const rows = await tx.query('DELETE FROM project_members WHERE project_id = $1 AND user_id = $2 RETURNING user_id', [projectId, userId]);
  return rows.length > 0;
}
