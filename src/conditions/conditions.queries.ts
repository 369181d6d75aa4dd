import type { Queryable } from '../db/index.ts';
import type { ConditionTree } from './types.ts';

export type SegmentDefinitionRow = { id: string; type: 'DYNAMIC' | 'STATIC'; condition: ConditionTree | null };

/** The definitions of the given segments of a project (those that exist). */
export async function findSegmentDefinitions(db: Queryable, projectId: string, ids: string[]): Promise<SegmentDefinitionRow[]> {
  if (ids.length === 0) return [];
  return db.query<SegmentDefinitionRow>('SELECT id, type, condition FROM segments WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, ids]);
}
