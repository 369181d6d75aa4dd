import type { Queryable } from '../db/index.ts';
import { dueProjects as dueProjectsOf } from './project-rotation.queries.ts';

/**
 * The claim queue (docs/architecture.md, "Claims"): rows of a table that workers claim with a
 * lease, for the delivery worker (emails), the workflow engine (workflow_executions) and webhook
 * delivery (webhook_messages). A claim takes due rows FOR UPDATE SKIP LOCKED (concurrent workers take
 * disjoint rows), moves their due time to the lease's end, past which another worker may take them
 * over, and names the worker instance that holds them (`claimed_by`, src/jobs/instances.ts). A
 * lease is extended while the work goes on; the claims of a dead instance are released, due at
 * once, for the live workers to take over. Across projects, or in the one project a claim names
 * (on Citus, which locks rows only in a statement for one project: project-rotation.ts).
 */
export type ClaimQueue = {
  table: string;
  /** The column a row falls due at; a claim moves it to the lease's end. */
  due: string;
  /** The rows in the queue, due or claimed (a predicate on the table's columns). */
  pending: string;
  /** The rows a worker holds; a dead worker's are released. */
  claimed: string;
  /** When a released row falls due (default now()). */
  releaseTo?: string;
  /** What a release writes besides (webhooks: the claim's holder cleared). */
  releaseSet?: string;
};

/** Binds a value as the statement's next parameter and returns its placeholder. */
export type Bind = (value: unknown) => string;

export type Claim = {
  limit: number;
  leaseSeconds: number;
  claimedBy: number;
  /** Only this project's rows (Citus). */
  projectId?: string;
  /** What the claim writes besides the lease and its holder (the claimed row is `x`). */
  set?: (bind: Bind) => string;
  /** What it returns of `x` (and of `from`). */
  returning: string;
  /**
   * The CTEs that end in `due (project_id, id)`: the rows to claim, locked. Default: the oldest
   * `limit` due rows. `inProject(alias)` is the project condition of a claim in one project,
   * `limit` the placeholder of `limit`.
   */
  due?: (query: { bind: Bind; inProject: (alias: string) => string; limit: string }) => string;
  /** More FROM items of the update and their conditions on `x` (webhooks: the endpoint). */
  from?: { items: string; where: (inProject: (alias: string) => string) => string };
};

/** Claims due rows of `queue` for the worker instance `claim.claimedBy`, with a lease of `claim.leaseSeconds`. */
export async function claimDue<T>(db: Queryable, queue: ClaimQueue, claim: Claim): Promise<T[]> {
  const params: unknown[] = [];
  const bind: Bind = (value) => {
    params.push(value);
    return `$${params.length}`;
  };
  const limit = bind(claim.limit);
  const lease = bind(claim.leaseSeconds);
  const claimedBy = bind(claim.claimedBy);
  const project = claim.projectId === undefined ? undefined : bind(claim.projectId);
  // Every table names the project, so Citus routes the whole statement to the project's node.
  const inProject = (alias: string) => (project ? `AND ${alias ? `${alias}.` : ''}project_id = ${project}` : '');
  const set = claim.set ? `, ${claim.set(bind)}` : '';
  const due = claim.due
    ? claim.due({ bind, inProject, limit })
    : `due AS (
       SELECT project_id, id FROM ${queue.table}
       WHERE ${queue.pending} AND ${queue.due} <= now() ${inProject('')}
       ORDER BY ${queue.due}
       LIMIT ${limit}
       FOR UPDATE SKIP LOCKED
     )`;
  const from = claim.from ? `, ${claim.from.items}` : '';
  const where = claim.from ? ` ${claim.from.where(inProject)}` : '';
  return db.query<T>(
    `WITH ${due}
     UPDATE ${queue.table} AS x SET ${queue.due} = now() + make_interval(secs => ${lease}), claimed_by = ${claimedBy}${set}
     FROM due${from} WHERE x.project_id = due.project_id AND x.id = due.id ${inProject('x')}${where}
     RETURNING ${claim.returning}`,
    params,
  );
}

/** The projects with due rows, the project of the oldest first (project-rotation.queries.ts). */
export function dueProjects(db: Queryable, queue: ClaimQueue, scan: number, options: { where?: string; params?: unknown[] } = {}): Promise<string[]> {
  const where = options.where ? `${queue.pending} AND ${options.where}` : queue.pending;
  return dueProjectsOf(db, { table: queue.table, due: queue.due, where }, scan, options.params);
}

/** A claim's fence: the column whose value the claimed row must still hold (an attempt number, a claim token). */
export type Fence = { column: string; type: string };

/**
 * Extends the lease of rows still held: each `refs` entry names its row and the fence value its
 * claim returned; a row taken over since (another value) or no longer held is left alone.
 */
export async function extendLeases(
  db: Queryable,
  queue: ClaimQueue,
  fence: Fence,
  refs: Array<{ project_id: string; id: string } & Record<string, unknown>>,
  leaseSeconds: number,
): Promise<void> {
  if (refs.length === 0) return;
  const held = refs.map((ref) => ({ project_id: ref.project_id, id: ref.id, [fence.column]: ref[fence.column] }));
  await db.query(
    `UPDATE ${queue.table} AS x SET ${queue.due} = now() + make_interval(secs => $2)
     FROM jsonb_to_recordset($1::jsonb) AS c(project_id uuid, id uuid, ${fence.column} ${fence.type})
     WHERE x.project_id = c.project_id AND x.id = c.id AND x.${fence.column} = c.${fence.column} AND ${queue.claimed}`,
    [JSON.stringify(held), leaseSeconds],
  );
}

/** The rows dead worker instances held fall due (now, or `releaseTo`), for the live workers to take over. */
export async function releaseClaimsOf(db: Queryable, queue: ClaimQueue, instances: number[]): Promise<number> {
  const set = [`${queue.due} = ${queue.releaseTo ?? 'now()'}`, ...(queue.releaseSet ? [queue.releaseSet] : [])].join(', ');
  const rows = await db.query<{ n: number }>(
    `WITH released AS (
       UPDATE ${queue.table} SET ${set}
       WHERE ${queue.claimed} AND claimed_by = ANY($1::int[]) AND ${queue.due} > now()
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM released`,
    [instances],
  );
  return rows[0]?.n ?? 0;
}

/** When the next row falls due (a retry, a lease's end), for a wake-up. */
export async function nextDueAt(db: Queryable, queue: ClaimQueue): Promise<Date | null> {
  const rows = await db.query<{ at: Date | string | null }>(`SELECT min(${queue.due}) AS at FROM ${queue.table} WHERE ${queue.pending}`);
  const at = rows[0]?.at;
  return at ? new Date(at) : null;
}
