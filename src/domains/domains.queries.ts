import { openSecret, sealSecret } from '../auth/secrets.ts';
import type { Queryable } from '../db/index.ts';
import type { RecordChecks } from './records.ts';

/** A domains row without its private key: what every read for a response selects. */
export type DomainRow = {
  project_id: string;
  id: string;
  domain: string;
  status: 'pending' | 'verified';
  selector: string;
  public_key: string;
  verified_at: Date | string | null;
  last_checked_at: Date | string | null;
  created_at: Date | string;
  record_checks: RecordChecks | null;
  /** Inbound mail accepted at its addresses (docs/inbound.md). */
  inbound: boolean;
  /** Warm-up (docs/streams.md): on or off, its daily caps (null: the default schedule), its first day. */
  warmup_enabled: boolean;
  warmup_schedule: number[] | null;
  /** warmup_started_on as days since 1970-01-01 (a date read the same way by every driver). */
  warmup_started_day: number | null;
};

/** What a check needs; the result of one, applied by applyCheckOutcomes. */
export type DomainToCheck = Pick<DomainRow, 'project_id' | 'id' | 'domain' | 'selector' | 'public_key' | 'inbound'>;
/** `outcome` decides the status (the required records); `checks` are the records' answers (absent kinds: no answer). */
export type CheckOutcome = { outcome: 'pass' | 'fail' | 'unknown'; checks: RecordChecks };

// The private key is deliberately absent: it is read only by findSenderKey.
const COLUMNS = [
  'project_id',
  'id',
  'domain',
  'status',
  'selector',
  'public_key',
  'verified_at',
  'last_checked_at',
  'created_at',
  'record_checks',
  'inbound',
  'warmup_enabled',
  'warmup_schedule',
];
const publicColumns = (alias?: string) => {
  const of = (column: string) => (alias ? `${alias}.${column}` : column);
  return `${COLUMNS.map(of).join(', ')}, (${of('warmup_started_on')} - DATE '1970-01-01') AS warmup_started_day`;
};
const PUBLIC_COLUMNS = publicColumns();

export async function insertDomain(db: Queryable, input: { projectId: string; domain: string; selector: string; publicKey: string; privateKey: string }): Promise<DomainRow> {
  const rows = await db.query<DomainRow>(`INSERT INTO domains (project_id, domain, selector, public_key, private_key) VALUES ($1, $2, $3, $4, $5) RETURNING ${PUBLIC_COLUMNS}`, [
    input.projectId,
    input.domain,
    input.selector,
    input.publicKey,
    sealSecret(input.privateKey, 'domains.private_key'),
  ]);
  return rows[0]!;
}

/**
 * Who already holds this name: this project (any status), or another project that verified it.
 * The second is a look across projects by nature (docs/decisions/domains.md), served by domains_verified_domain_key.
 */
export async function findDomainClaim(db: Queryable, projectId: string, domain: string): Promise<'this-project' | 'verified-elsewhere' | undefined> {
  const rows = await db.query<{ mine: boolean }>(
    `SELECT project_id = $1 AS mine FROM domains
      WHERE domain = $2 AND (project_id = $1 OR status = 'verified')
      ORDER BY mine DESC LIMIT 1`,
    [projectId, domain],
  );
  if (!rows[0]) return undefined;
  return rows[0].mine ? 'this-project' : 'verified-elsewhere';
}

export async function findDomain(db: Queryable, projectId: string, id: string): Promise<DomainRow | undefined> {
  const rows = await db.query<DomainRow>(`SELECT ${PUBLIC_COLUMNS} FROM domains WHERE project_id = $1 AND id = $2`, [projectId, id]);
  return rows[0];
}

export async function listDomains(db: Queryable, projectId: string): Promise<DomainRow[]> {
  return db.query<DomainRow>(`SELECT ${PUBLIC_COLUMNS} FROM domains WHERE project_id = $1 ORDER BY created_at, id`, [projectId]);
}

export async function deleteDomain(db: Queryable, projectId: string, id: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM domains WHERE project_id = $1 AND id = $2 RETURNING id', [projectId, id]);
  return rows.length > 0;
}

/** Turns inbound mail on or off for a domain of the project (docs/inbound.md); undefined when there is no such domain. */
export async function setDomainInbound(db: Queryable, projectId: string, id: string, inbound: boolean): Promise<DomainRow | undefined> {
  const rows = await db.query<DomainRow>(`UPDATE domains SET inbound = $3 WHERE project_id = $1 AND id = $2 RETURNING ${PUBLIC_COLUMNS}`, [projectId, id, inbound]);
  return rows[0];
}

/**
 * Sets a domain's warm-up (docs/streams.md): `schedule` null for the default one, `startedDay` in
 * days since 1970-01-01. Undefined when there is no such domain.
 */
export async function setDomainWarmup(
  db: Queryable,
  projectId: string,
  id: string,
  warmup: { enabled: boolean; schedule: number[] | null; startedDay: number | null },
): Promise<DomainRow | undefined> {
  const rows = await db.query<DomainRow>(
    `UPDATE domains SET warmup_enabled = $3, warmup_schedule = $4::int[], warmup_started_on = DATE '1970-01-01' + $5::int
     WHERE project_id = $1 AND id = $2 RETURNING ${PUBLIC_COLUMNS}`,
    [projectId, id, warmup.enabled, warmup.schedule, warmup.startedDay],
  );
  return rows[0];
}

/** The verified domains of these projects with their warm-up: what the delivery worker paces marketing mail by. */
export async function findVerifiedDomains(db: Queryable, projectIds: string[]): Promise<DomainRow[]> {
  return db.query<DomainRow>(`SELECT ${PUBLIC_COLUMNS} FROM domains WHERE project_id = ANY($1::uuid[]) AND status = 'verified'`, [projectIds]);
}

/**
 * The project that receives mail for `domain`: verified there with inbound on (at most one project
 * has a name verified, domains_verified_domain_key). A look across projects by nature: the
 * recipient's domain is all the listener knows.
 */
export async function findInboundDomain(db: Queryable, domain: string): Promise<{ project_id: string; id: string } | undefined> {
  const rows = await db.query<{ project_id: string; id: string }>(`SELECT project_id, id FROM domains WHERE domain = $1 AND status = 'verified' AND inbound`, [domain]);
  return rows[0];
}

/**
 * Domains the background check should look at now: never checked, or not checked for
 * `olderThanSeconds`. Oldest first, so a run cut short resumes where it stopped. Across projects:
 * the scheduler is the one reader that is not project-scoped; the table is small (a few rows per
 * project), so this is a plain scan.
 */
export async function findDueDomains(db: Queryable, olderThanSeconds: number, limit: number): Promise<DomainToCheck[]> {
  return db.query<DomainToCheck>(
    `SELECT project_id, id, domain, selector, public_key, inbound FROM domains
      WHERE last_checked_at IS NULL OR last_checked_at < now() - $1::double precision * interval '1 second'
      ORDER BY last_checked_at NULLS FIRST, project_id, id
      LIMIT $2`,
    [olderThanSeconds, limit],
  );
}

/**
 * Records a batch of check outcomes in one statement (docs/decisions/domains.md):
 * - `fail` (a required record is missing or wrong) → pending;
 * - `pass` → verified, unless another project has the name verified; when several projects pass
 *   in one batch, the earliest-created wins (domains_verified_domain_key allows one);
 * - `unknown` (timeout, SERVFAIL) → status kept.
 * Every checked domain gets last_checked_at. verified_at is when it last became verified. The time
 * comes from the `clock` CTE: Citus refuses now() inside CASE in a statement that writes.
 */
export async function applyCheckOutcomes(db: Queryable, results: Array<{ projectId: string; id: string; result: CheckOutcome }>): Promise<DomainRow[]> {
  if (results.length === 0) return [];
  const outcomes = results.map((r) => ({ projectId: r.projectId, id: r.id, outcome: r.result.outcome, checks: r.result.checks }));
  return db.query<DomainRow>(
    `WITH checked AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS c("projectId" uuid, id uuid, outcome text, checks jsonb)
     ), clock AS MATERIALIZED (
       SELECT now() AS now
     ), seen AS (
       SELECT d.project_id, d.id, d.domain, d.status, d.created_at, c.outcome, c.checks
         FROM domains d JOIN checked c ON c."projectId" = d.project_id AND c.id = d.id
     ), promoted AS (
       SELECT project_id, id FROM (
         SELECT s.project_id, s.id, row_number() OVER (PARTITION BY s.domain ORDER BY s.created_at, s.id) AS place
           FROM seen s
          WHERE s.outcome = 'pass' AND s.status = 'pending'
            AND NOT EXISTS (
              SELECT 1 FROM domains other
               WHERE other.domain = s.domain AND other.status = 'verified' AND other.project_id <> s.project_id)
       ) ranked WHERE place = 1
     )
     UPDATE domains d SET
       status = CASE WHEN s.outcome = 'fail' THEN 'pending' WHEN p.id IS NOT NULL THEN 'verified' ELSE d.status END,
       verified_at = CASE WHEN s.outcome = 'fail' THEN NULL WHEN p.id IS NOT NULL THEN clock.now ELSE d.verified_at END,
       last_checked_at = clock.now,
       -- A record whose lookup got no answer keeps what the previous check found.
       record_checks = coalesce(d.record_checks, '{}'::jsonb) || s.checks
     FROM seen s LEFT JOIN promoted p ON p.project_id = s.project_id AND p.id = s.id CROSS JOIN clock
     WHERE d.project_id = s.project_id AND d.id = s.id
     RETURNING ${publicColumns('d')}`,
    [JSON.stringify(outcomes)],
  );
}

/** The most specific verified domain of the project among `names` (an address's domain and its parents). */
/**
 * findSenderKey's domain for many senders in one statement: per entry of `senders` (in order), the
 * most specific verified domain among its names, or undefined.
 */
export async function findSenderDomains(db: Queryable, senders: Array<{ projectId: string; names: string[] }>): Promise<Array<string | undefined>> {
  if (senders.length === 0) return [];
  const rows = await db.query<{ ord: number; domain: string }>(
    `SELECT DISTINCT ON (s.ord) s.ord, d.domain
     FROM jsonb_to_recordset($1::jsonb) AS s(ord int, project_id uuid, names text[])
     JOIN domains d ON d.project_id = s.project_id AND d.status = 'verified' AND d.domain = ANY(s.names)
     ORDER BY s.ord, length(d.domain) DESC`,
    [JSON.stringify(senders.map((sender, ord) => ({ ord, project_id: sender.projectId, names: sender.names })))],
  );
  const byOrd = new Map(rows.map((row) => [row.ord, row.domain]));
  return senders.map((_, ord) => byOrd.get(ord));
}

export async function findSenderKey(
  db: Queryable,
  projectId: string,
  names: string[],
): Promise<{ domain: string; selector: string; private_key: string; record_checks: RecordChecks | null } | undefined> {
  const rows = await db.query<{ domain: string; selector: string; private_key: string; record_checks: RecordChecks | null }>(
    `SELECT domain, selector, private_key, record_checks FROM domains
      WHERE project_id = $1 AND status = 'verified' AND domain = ANY($2::text[])
      ORDER BY length(domain) DESC LIMIT 1`,
    [projectId, names],
  );
  return rows[0] && { ...rows[0], private_key: openSecret(rows[0].private_key, 'domains.private_key') };
}

/** The server's own DKIM key for `domain` (SYSTEM_FROM, docs/decisions/sending.md); one row per domain. */
export type SystemKeyRow = { domain: string; selector: string; public_key: string; private_key: string };

/**
 * Stores a key unless the domain has one, and returns the domain's key: of processes starting at
 * once, every one gets the key the first insert kept.
 */
export async function keepSystemKey(db: Queryable, key: SystemKeyRow): Promise<SystemKeyRow> {
  await db.query(`INSERT INTO system_dkim_keys (domain, selector, public_key, private_key) VALUES ($1, $2, $3, $4) ON CONFLICT (domain) DO NOTHING`, [
    key.domain,
    key.selector,
    key.public_key,
    sealSecret(key.private_key, 'system_dkim_keys.private_key'),
  ]);
  return (await findSystemKey(db, key.domain))!;
}

export async function findSystemKey(db: Queryable, domain: string): Promise<SystemKeyRow | undefined> {
  const rows = await db.query<SystemKeyRow>('SELECT domain, selector, public_key, private_key FROM system_dkim_keys WHERE domain = $1', [domain]);
  return rows[0] && { ...rows[0], private_key: openSecret(rows[0].private_key, 'system_dkim_keys.private_key') };
}
