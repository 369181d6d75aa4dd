import type { Queryable } from '../db/index.ts';

/**
 * Project-owned tables that a reset keeps (docs/decisions/administration.md): the project's
 * membership and settings, its sending domains (their DKIM keys are published in DNS), its
 * reputation state and the audit log. Every other table with a project_id column is wiped,
 * including tables added by later migrations.
 */
const KEPT = ['project_members', 'domains', 'billing_limits', 'project_reputation', 'audit_log'];

/**
 * The tables a reset empties, children before the tables they reference, so no row is first
 * rewritten by ON DELETE SET NULL and then deleted, and no RESTRICT reference is hit.
 */
export async function resettableTables(tx: Queryable): Promise<string[]> {
  const tables = await tx.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c
     JOIN pg_namespace n ON n.oid = c.relnamespace
     JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'project_id' AND NOT a.attisdropped
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
       AND c.relname <> ALL($1::text[])
     ORDER BY c.relname`,
    [KEPT],
  );
  const references = await tx.query<{ child: string; parent: string }>(
    `SELECT ch.relname AS child, pa.relname AS parent FROM pg_constraint k
     JOIN pg_class ch ON ch.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid
     JOIN pg_namespace n ON n.oid = ch.relnamespace
     WHERE k.contype = 'f' AND n.nspname = current_schema() AND ch.oid <> pa.oid`,
  );
  return childrenFirst(
    tables.map((t) => t.name),
    references,
  );
}

/** Orders `names` so a table comes before every table it references (a cycle keeps catalog order). */
function childrenFirst(names: string[], references: Array<{ child: string; parent: string }>): string[] {
  const pending = new Set(names);
  const ordered: string[] = [];
  while (pending.size) {
    // A table is ready once no pending table still references it.
    const ready = [...pending].filter((name) => !references.some((r) => r.parent === name && r.child !== name && pending.has(r.child)));
    const next = ready.length ? ready : [[...pending][0]!];
    for (const name of next) {
      pending.delete(name);
      ordered.push(name);
    }
  }
  return ordered;
}

/** Deletes a project's rows from one table named by the catalog (quoted here, never from input). */
export async function deleteProjectRows(tx: Queryable, table: string, projectId: string): Promise<number> {
  const quoted = `"${table.replaceAll('"', '""')}"`;
  const rows = await tx.query<{ deleted: number }>(`WITH gone AS (DELETE FROM ${quoted} WHERE project_id = $1 RETURNING 1) SELECT count(*)::bigint AS deleted FROM gone`, [
    projectId,
  ]);
  return rows[0]!.deleted;
}

export async function findProjectNameForUpdate(tx: Queryable, projectId: string): Promise<string | undefined> {
  const rows = await tx.query<{ name: string }>('SELECT name FROM projects WHERE id = $1 FOR NO KEY UPDATE', [projectId]);
  return rows[0]?.name;
}

export type SetupRow = {
  domain_added: boolean;
  domain_verified: boolean;
  template_created: boolean;
  contact_created: boolean;
  event_tracked: boolean;
  email_sent: boolean;
  campaign_created: boolean;
  team_invited: boolean;
};

/** One probe per onboarding step, each an index lookup on project_id. */
export async function setupState(db: Queryable, projectId: string): Promise<SetupRow> {
  const rows = await db.query<SetupRow>(
    `SELECT
       EXISTS (SELECT 1 FROM domains WHERE project_id = $1) AS domain_added,
       EXISTS (SELECT 1 FROM domains WHERE project_id = $1 AND status = 'verified') AS domain_verified,
       EXISTS (SELECT 1 FROM templates WHERE project_id = $1) AS template_created,
       EXISTS (SELECT 1 FROM contacts WHERE project_id = $1) AS contact_created,
       EXISTS (SELECT 1 FROM event_names WHERE project_id = $1 AND name !~* '^(email\\.|contact\\.(un)?subscribed$|segment\\..+\\.(entry|exit)$)') AS event_tracked,
       EXISTS (SELECT 1 FROM emails WHERE project_id = $1 AND status <> 'SUPPRESSED') AS email_sent,
       EXISTS (SELECT 1 FROM campaigns WHERE project_id = $1) AS campaign_created,
       (SELECT count(*) FROM project_members WHERE project_id = $1) > 1 AS team_invited`,
    [projectId],
  );
  return rows[0]!;
}
