import type { Queryable } from '../db/index.ts';
import type { ContactRow } from './contacts.schemas.ts';

/** A predicate over contacts `c` with its bound parameters; the project is always `$1`. */
export type ContactSelection = { predicate: string; params: unknown[] };

/** The data keys the selected contacts hold, sorted: the export's data columns. */
export async function selectedDataKeys(db: Queryable, selection: ContactSelection): Promise<string[]> {
  const rows = await db.query<{ key: string }>(
    `SELECT DISTINCT k.key FROM contacts c, jsonb_object_keys(c.data) AS k(key) WHERE ${selection.predicate} ORDER BY k.key`,
    selection.params,
  );
  return rows.map((row) => row.key);
}

/** The next `limit` selected contacts after the address `after`, by address (keyset: emails are unique in a project). */
export async function selectedContactsAfter(db: Queryable, selection: ContactSelection, after: string | null, limit: number): Promise<ContactRow[]> {
  const params = [...selection.params, after ?? '', limit];
  return db.query<ContactRow>(`SELECT c.* FROM contacts c WHERE ${selection.predicate} AND c.email > $${params.length - 1} ORDER BY c.email LIMIT $${params.length}`, params);
}
