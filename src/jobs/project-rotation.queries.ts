import type { Queryable } from '../db/index.ts';

/**
 * Where a capability's due rows are, for dueProjects: its table, the column that says when a row
 * is due, and the filter of rows that can be due, which may use parameters from $2. Constants of
 * the capability's queries file, never input.
 */
export type DueRows = { table: string; due: string; where: string };

/**
 * The projects with due rows among the oldest `scan`, the project of the oldest first: a read
 * without locks across every shard, for claims of one project at a time (project-rotation.ts).
 */
export async function dueProjects(db: Queryable, rows: DueRows, scan: number, params: unknown[] = []): Promise<string[]> {
  const found = await db.query<{ project_id: string }>(
    `SELECT project_id FROM (
       SELECT project_id, ${rows.due} AS due FROM ${rows.table} WHERE ${rows.where} AND ${rows.due} <= now() ORDER BY ${rows.due} LIMIT $1
     ) d GROUP BY project_id ORDER BY min(due)`,
    [scan, ...params],
  );
  return found.map((row) => row.project_id);
}
