import pg from 'pg';
import type { Queryable } from '../../src/db/db.ts';
import { COLOCATION_ANCHOR, GLOBAL_TABLES } from '../../src/db/distribution.ts';

/** Not part of the product's schema: the migration ledger stays a plain table (src/db/distribution.ts). */
export const UNMANAGED_TABLES = new Set(['schema_migrations']);

export type TableShape = { name: string; columns: string[]; primaryKey: string[] };
export type Kind = 'reference' | 'coordinator' | 'distributed';

/** Every table of the public schema with its columns and primary key, as the migrations made them. */
export async function tableShapes(db: Queryable): Promise<TableShape[]> {
  return db.query<TableShape>(
    `SELECT c.relname::text AS name,
            array(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum) AS columns,
            array(SELECT a.attname::text FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
                   WHERE k.conrelid = c.oid AND k.contype = 'p' ORDER BY a.attnum) AS "primaryKey"
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY c.relname`,
  );
}

/** How src/db/distribution.ts places a table: its GLOBAL_TABLES entry, else distributed when its key has project_id. */
export function kindOf(table: TableShape): Kind | undefined {
  return GLOBAL_TABLES[table.name] ?? (table.primaryKey.includes('project_id') ? 'distributed' : undefined);
}

/** Unique indexes (constraints included) with their plain columns. */
export async function uniqueIndexes(db: Queryable): Promise<Array<{ table: string; index: string; columns: string[] }>> {
  return db.query(
    `SELECT t.relname::text AS table, i.relname::text AS index,
            array(SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attnum = ANY (x.indkey)) AS columns
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = 'public' AND x.indisunique
      ORDER BY 1, 2`,
  );
}

/** Foreign keys between tables of the public schema, columns in key order. */
export async function foreignKeys(db: Queryable): Promise<Array<{ child: string; parent: string; name: string; childColumns: string[]; parentColumns: string[] }>> {
  return db.query(
    `SELECT c.relname::text AS child, p.relname::text AS parent, k.conname::text AS name,
            array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i) AS "childColumns",
            array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i) AS "parentColumns"
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'f' AND n.nspname = 'public'
      ORDER BY 1, 3`,
  );
}

export type Placement = { table: string; shardId: string; shardName: string; host: string; port: number };

/** Where one project's shard of every hash-distributed table lives (Citus metadata, on the coordinator). */
export async function projectPlacements(coordinator: pg.Client, projectId: string): Promise<Placement[]> {
  const rows = await coordinator.query<Placement>(
    `SELECT p.logicalrelid::regclass::text AS table, s.shardid::text AS "shardId",
            p.logicalrelid::regclass::text || '_' || s.shardid AS "shardName", n.nodename AS host, n.nodeport AS port
       FROM pg_dist_partition p
       JOIN pg_dist_shard s ON s.shardid = get_shard_id_for_distribution_column(p.logicalrelid, $1::uuid)
       JOIN pg_dist_placement pl ON pl.shardid = s.shardid
       JOIN pg_dist_node n ON n.groupid = pl.groupid
      WHERE p.partmethod = 'h'
      ORDER BY 1`,
    [projectId],
  );
  return rows.rows;
}

/** Every table Citus manages, with how: 'distributed' (hash), 'reference', or 'coordinator' (a Citus local table). */
export async function citusKinds(coordinator: pg.Client): Promise<Map<string, { kind: Kind; colocationId: number }>> {
  const rows = await coordinator.query<{ table: string; partmethod: string; repmodel: string; colocationid: number }>(
    'SELECT logicalrelid::regclass::text AS table, partmethod, repmodel, colocationid FROM pg_dist_partition',
  );
  const kind = (r: { partmethod: string; repmodel: string }): Kind => (r.partmethod === 'h' ? 'distributed' : r.repmodel === 't' ? 'reference' : 'coordinator');
  return new Map(rows.rows.map((r) => [r.table, { kind: kind(r), colocationId: r.colocationid }]));
}

export async function connectDatabase(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** A connection to the same database on a node of the cluster whose coordinator is `url`. */
export async function connectNode(url: string, node: { host: string; port: number }): Promise<pg.Client> {
  const target = new URL(url);
  target.hostname = node.host;
  target.port = String(node.port);
  return connectDatabase(target.toString());
}

export { COLOCATION_ANCHOR };
