import type { Queryable } from '../db/index.ts';

/**
 * The narrow copy's slots and its backfill (migrations/0116_contact_slots.sql;
 * docs/decisions/segments.md, "The narrow copy"). The statement triggers on `contacts` keep it for
 * every write; these fill it for the contacts a new slot finds already there.
 */

export const SLOTS = 8;

// The lock the triggers take shared, per project, before they read the slots: a backfill batch
// takes it exclusively (two-key advisory locks, the first key naming the narrow copy).
const COPY_LOCK = 1_296_516_201;
// Serialises the choice of free slots within a project.
const SLOT_LOCK = 1_296_516_202;

const slotNumbers = Array.from({ length: SLOTS }, (_, i) => i + 1);
const COLUMNS = slotNumbers.map((i) => `t${i}, n${i}, k${i}`).join(', ');
const VALUES = slotNumbers
  .map((i) => `mailroom_field_text(c.data -> m.k${i}), mailroom_field_number(c.data -> m.k${i}), mailroom_field_kind(c.data -> m.k${i})`)
  .join(',\n           ');
const PIVOT = slotNumbers.map((i) => `max(key) FILTER (WHERE slot = ${i}) AS k${i}`).join(', ');
const SET = slotNumbers.map((i) => `t${i} = excluded.t${i}, n${i} = excluded.n${i}, k${i} = excluded.k${i}`).join(',\n       ');

export type SlotRow = { key: string; slot: number; ready: boolean };

/**
 * Gives each of `keys` without a slot the lowest free one, while any is free; answers every slot
 * of the project and the slots given now. Its own transaction: a slot is visible to the triggers
 * before a backfill reads.
 */
export async function assignSlots(tx: Queryable, projectId: string, keys: readonly string[]): Promise<{ slots: SlotRow[]; added: number }> {
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2::text))', [SLOT_LOCK, projectId]);
  const added = await tx.query(
    `WITH taken AS (SELECT key, slot FROM contact_slot_keys WHERE project_id = $1),
          wanted AS (SELECT key, row_number() OVER (ORDER BY ord) AS n
                       FROM unnest($2::text[]) WITH ORDINALITY AS k (key, ord)
                      WHERE key NOT IN (SELECT key FROM taken)),
          free AS (SELECT slot, row_number() OVER (ORDER BY slot) AS n
                     FROM generate_series(1, ${SLOTS}) AS slot
                    WHERE slot NOT IN (SELECT slot FROM taken))
     INSERT INTO contact_slot_keys (project_id, slot, key)
     SELECT $1, free.slot, wanted.key FROM wanted JOIN free USING (n)
     ON CONFLICT DO NOTHING
     RETURNING slot`,
    [projectId, [...new Set(keys)]],
  );
  const slots = await tx.query<SlotRow>('SELECT key, slot, ready FROM contact_slot_keys WHERE project_id = $1 ORDER BY slot', [projectId]);
  return { slots: slots.map((row) => ({ ...row, slot: Number(row.slot) })), added: added.length };
}

/**
 * Copies the next `limit` contacts of the project after `after` (in id order) into the narrow copy,
 * every slot of the project at once, under the project's exclusive copy lock: the statement's
 * snapshot is taken after the lock, so no write it misses is still running. Answers how many it
 * copied and the last id. Run it in a transaction of its own.
 */
export async function backfillBatch(tx: Queryable, projectId: string, after: string | null, limit: number): Promise<{ copied: number; last: string | null }> {
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2::text))', [COPY_LOCK, projectId]);
  const [row] = await tx.query<{ last: string | null; copied: number }>(
    `WITH m AS (SELECT ${PIVOT} FROM contact_slot_keys WHERE project_id = $1),
          batch AS (SELECT * FROM contacts c WHERE c.project_id = $1 AND ($2::uuid IS NULL OR c.id > $2::uuid) ORDER BY c.id LIMIT $3),
          written AS (
            INSERT INTO contact_slots (project_id, id, subscribed, created_at, ${COLUMNS})
            SELECT c.project_id, c.id, c.subscribed, c.created_at,
           ${VALUES}
              FROM batch c CROSS JOIN m
            ON CONFLICT (project_id, id) DO UPDATE SET
       subscribed = excluded.subscribed, created_at = excluded.created_at,
       ${SET}
            RETURNING 1)
     SELECT (SELECT id FROM batch ORDER BY id DESC LIMIT 1) AS last, (SELECT count(*) FROM written)::int AS copied`,
    [projectId, after, limit],
  );
  return { copied: row!.copied, last: row!.last };
}

/** Which of `slots` are not ready yet. */
export async function unreadySlots(db: Queryable, projectId: string, slots: readonly number[]): Promise<number[]> {
  const rows = await db.query<{ slot: number }>('SELECT slot FROM contact_slot_keys WHERE project_id = $1 AND slot = ANY($2::smallint[]) AND NOT ready', [projectId, slots]);
  return rows.map((row) => Number(row.slot));
}

/** Marks slots ready: every contact of the project has them filled. */
export async function markSlotsReady(db: Queryable, projectId: string, slots: readonly number[]): Promise<void> {
  await db.query('UPDATE contact_slot_keys SET ready = true WHERE project_id = $1 AND slot = ANY($2::smallint[])', [projectId, slots]);
}
