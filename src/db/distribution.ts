import type { Db, Queryable } from './db.ts';

/**
 * How each table lives on a Citus cluster (DATABASE_DISTRIBUTION=citus; docs/architecture.md,
 * "Distribution on Citus", says why for each). Every other table of the public schema must carry
 * `project_id` in its primary key: it is distributed by `project_id`, co-located with `contacts`,
 * so one project's rows of every table sit on one node and its statements run on that node alone.
 *
 * - `reference`: replicated to every node. Small, read far more than written, and needed by
 *   statements that run on any node (a key's project, a member's projects, a name verified in
 *   one project only: a uniqueness across projects that a distributed table cannot hold).
 * - `coordinator`: one copy, on the coordinator, known to Citus (a "Citus local table") so it may
 *   join reference tables and keep its foreign keys. Global queues and counters written on every
 *   request, where replication to every node would cost a two-phase commit per write.
 */
export const GLOBAL_TABLES: Readonly<Record<string, 'reference' | 'coordinator'>> = {
  users: 'reference',
  projects: 'reference',
  api_keys: 'reference',
  project_members: 'reference',
  project_invitations: 'reference',
  domains: 'reference',
  rollup_watermarks: 'reference',
  auth_tokens: 'coordinator',
  rate_limits: 'coordinator',
  sns_messages: 'coordinator',
  uploads: 'coordinator',
  event_dispatch: 'coordinator',
  worker_instances: 'coordinator',
  login_failures: 'coordinator',
  user_sessions: 'coordinator',
  system_dkim_keys: 'reference',
};

/** The table the distributed ones are co-located with. */
export const COLOCATION_ANCHOR = 'contacts';

// Not part of the product's schema: the migration ledger stays a plain table on the coordinator.
const UNMANAGED = new Set(['schema_migrations']);

// Same lock as the migrations', so a process distributing never races one migrating.
const MIGRATION_LOCK_ID = 7_261_042_913;

type TablePlan = { name: string; kind: 'reference' | 'coordinator' | 'distributed' };

/**
 * Distributes the tables a migration created and Citus does not manage yet, in an order that keeps
 * every foreign key valid (reference tables first, then each distributed table after the tables
 * it references). Idempotent: a table already in Citus' metadata is left alone, and later DDL on
 * it (new columns, indexes) is propagated by Citus itself.
 */
export async function distributeForCitus(db: Db): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_ID]);
    const [extension] = await tx.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'");
    if (!extension) throw new Error('DATABASE_DISTRIBUTION=citus but the citus extension is not installed in this database');
    // One connection per node for the whole transaction: DDL after a multi-shard statement in one
    // transaction needs it.
    await tx.query("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'");
    const plans = await pendingTables(tx);
    if (plans.length === 0) return [];
    // Citus refuses a foreign key between a table it manages and one it does not yet, so the keys
    // touching the pending tables are dropped, the tables distributed, and the keys added back.
    const names = plans.map((p) => p.name);
    const keys = await tx.query<{ child: string; name: string; definition: string }>(
      `SELECT k.conrelid::regclass::text AS child, k.conname AS name, pg_get_constraintdef(k.oid) AS definition
         FROM pg_constraint k
        WHERE k.contype = 'f' AND (k.conrelid::regclass::text = ANY($1::text[]) OR k.confrelid::regclass::text = ANY($1::text[]))
        ORDER BY k.conrelid::regclass::text, k.conname`,
      [names],
    );
    for (const key of keys) await tx.exec(`ALTER TABLE ${quote(key.child)} DROP CONSTRAINT ${quote(key.name)}`);
    const done: string[] = [];
    for (const plan of plans) {
      if (plan.kind === 'reference') await tx.query('SELECT create_reference_table($1::regclass)', [plan.name]);
      else if (plan.kind === 'coordinator') await tx.query('SELECT citus_add_local_table_to_metadata($1::regclass)', [plan.name]);
      else
        await tx.query("SELECT create_distributed_table($1::regclass, 'project_id', colocate_with => $2)", [
          plan.name,
          plan.name === COLOCATION_ANCHOR ? 'default' : COLOCATION_ANCHOR,
        ]);
      done.push(plan.name);
    }
    for (const key of keys) {
      // Citus cannot set a column of a co-located key to null (it would null the distribution
      // column too): those references are detached by the statements that delete their target.
      if (/ON DELETE SET (NULL|DEFAULT)/.test(key.definition)) continue;
      await tx.exec(`ALTER TABLE ${quote(key.child)} ADD CONSTRAINT ${quote(key.name)} ${key.definition}`);
    }
    return done;
  });
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

async function pendingTables(tx: Queryable): Promise<TablePlan[]> {
  const tables = await tx.query<{ name: string; pk_has_project: boolean; managed: boolean }>(
    `SELECT c.relname AS name,
            EXISTS (SELECT 1 FROM pg_constraint k JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = ANY (k.conkey)
                     WHERE k.conrelid = c.oid AND k.contype = 'p' AND a.attname = 'project_id') AS pk_has_project,
            EXISTS (SELECT 1 FROM pg_dist_partition p WHERE p.logicalrelid = c.oid) AS managed
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition`,
  );
  const references = await tx.query<{ child: string; parent: string }>(
    `SELECT DISTINCT c.relname AS child, p.relname AS parent
       FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'f' AND n.nspname = 'public' AND c.oid <> p.oid`,
  );
  const unmanaged = tables.filter((t) => !t.managed && !UNMANAGED.has(t.name));
  const plans = new Map<string, TablePlan>();
  for (const table of unmanaged) {
    const kind = GLOBAL_TABLES[table.name] ?? (table.pk_has_project ? 'distributed' : undefined);
    if (!kind) throw new Error(`Table ${table.name} has no project_id in its primary key and no entry in GLOBAL_TABLES (src/db/distribution.ts): decide how it is distributed`);
    plans.set(table.name, { name: table.name, kind });
  }
  // Order: reference tables, then coordinator ones, then distributed ones parents first.
  const rank = { reference: 0, coordinator: 1, distributed: 2 } as const;
  const ordered: TablePlan[] = [];
  const placed = new Set<string>();
  const place = (plan: TablePlan, path: Set<string>) => {
    if (placed.has(plan.name) || path.has(plan.name)) return;
    path.add(plan.name);
    if (plan.kind === 'distributed' && plan.name !== COLOCATION_ANCHOR) {
      const anchor = plans.get(COLOCATION_ANCHOR);
      if (anchor) place(anchor, path);
    }
    for (const ref of references) if (ref.child === plan.name && plans.has(ref.parent)) place(plans.get(ref.parent)!, path);
    placed.add(plan.name);
    ordered.push(plan);
  };
  for (const plan of [...plans.values()].sort((a, b) => rank[a.kind] - rank[b.kind] || a.name.localeCompare(b.name))) place(plan, new Set());
  return ordered;
}
