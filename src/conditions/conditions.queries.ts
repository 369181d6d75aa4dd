import type { Queryable } from '../db/index.ts';
import type { ConditionTree } from './types.ts';

export type SegmentDefinitionRow = { id: string; type: 'DYNAMIC' | 'STATIC'; condition: ConditionTree | null };

/** The definitions of the given segments of a project (those that exist). */
export async function findSegmentDefinitions(db: Queryable, projectId: string, ids: string[]): Promise<SegmentDefinitionRow[]> {
  if (ids.length === 0) return [];
  return db.query<SegmentDefinitionRow>('SELECT id, type, condition FROM segments WHERE project_id = $1 AND id = ANY($2::uuid[])', [projectId, ids]);
}

/** The project's data keys whose slot of the narrow copy is filled (docs/decisions/segments.md, "The narrow copy"). */
export async function findReadySlots(db: Queryable, projectId: string): Promise<Map<string, number>> {
  const rows = await db.query<{ key: string; slot: number }>('SELECT key, slot FROM contact_slot_keys WHERE project_id = $1 AND ready', [projectId]);
  return new Map(rows.map((row) => [row.key, Number(row.slot)]));
}
