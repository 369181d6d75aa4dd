import { generateKeyPair, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Config } from '../config.ts';
import type { ConstraintErrors } from '../db/errors.ts';
import type { Queryable } from '../db/index.ts';
import type { Deps } from '../deps.ts';
import { AppError, notFound } from '../errors.ts';
import { dnsFor, type TxtLookup, type TxtResolver } from './dns.ts';
import {
  applyCheckOutcomes,
  type CheckOutcome,
  type DomainRow,
  type DomainToCheck,
  deleteDomain,
  findDomain,
  findDomainClaim,
  findDueDomains,
  findSenderDomains,
  findSenderKey,
  insertDomain,
  listDomains,
  setDomainInbound,
  setDomainWarmup,
} from './domains.queries.ts';
import type { Domain, DomainPatch } from './domains.schemas.ts';
import { bounceDomain, domainRecords, RECORD_KINDS, type RecordChecks, recordName } from './records.ts';
import { senderDomains } from './senders.ts';
import { warmupToday } from './warmup.queries.ts';
import { DEFAULT_WARMUP_SCHEDULE, epochDayOfIso, isoDay, warmupDay } from './warmup.ts';

const domainExists = () => new AppError('DOMAIN_EXISTS', { suggestion: 'List the project’s domains with GET /domains/project/{projectId}.' });
const verifiedElsewhere = () => new AppError('DOMAIN_VERIFIED_ELSEWHERE', { suggestion: 'A domain can be verified in one project at a time; remove it there first.' });
/** Wired in modules.ts. On verification, two projects passing at the same moment: the second one's check loses the race. */
export const domainConstraintErrors: ConstraintErrors = { domains_project_domain_key: domainExists, domains_verified_domain_key: verifiedElsewhere };

const generateRsaKeyPair = promisify(generateKeyPair);

/** A fresh DKIM key: RSA 2048 (docs/decisions/domains.md), generated off the event loop. */
export async function newDkimKey(): Promise<{ selector: string; publicKey: string; privateKey: string }> {
  const { publicKey, privateKey } = await generateRsaKeyPair('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // A random selector per domain: a domain removed and added again never matches a stale record.
  return { selector: `mr${randomBytes(5).toString('hex')}`, publicKey: publicKey.toString('base64'), privateKey };
}

const iso = (value: Date | string | null) => (value === null ? null : (value instanceof Date ? value : new Date(value)).toISOString());

/** The warm-up day now and what each domain of the project sent of it (warmupToday). */
type WarmupToday = { day: number; sent: Map<string, number> };

function warmupOf(row: DomainRow, today: WarmupToday | undefined): Domain['warmup'] {
  const schedule = row.warmup_schedule ?? [...DEFAULT_WARMUP_SCHEDULE];
  const started = row.warmup_started_day;
  const on = row.warmup_enabled && started !== null && today !== undefined;
  const position = on ? warmupDay(schedule, started, today.day) : undefined;
  return {
    enabled: row.warmup_enabled,
    schedule,
    custom: row.warmup_schedule !== null,
    startedAt: started === null ? null : isoDay(started),
    day: position ? position.day : null,
    capToday: position ? position.cap : null,
    sentToday: (on && today.sent.get(row.id)) || 0,
  };
}

export function toDomain(row: DomainRow, config: Config, today?: WarmupToday): Domain {
  return {
    id: row.id,
    domain: row.domain,
    status: row.status,
    records: domainRecords(row, config.spfMechanisms, bounceHostOf(config)),
    inbound: row.inbound,
    warmup: warmupOf(row, today),
    verifiedAt: iso(row.verified_at),
    lastCheckedAt: iso(row.last_checked_at),
    createdAt: iso(row.created_at)!,
  };
}

export async function createDomain(deps: Deps, projectId: string, domain: string): Promise<Domain> {
  // Checked before the key is made (that costs ~100 ms of CPU); the constraints settle races.
  const claim = await findDomainClaim(deps.db, projectId, domain);
  if (claim === 'this-project') throw domainExists();
  if (claim === 'verified-elsewhere') throw verifiedElsewhere();
  const key = await newDkimKey();
  return toDomain(await insertDomain(deps.db, { projectId, domain, ...key }), deps.config);
}

/** Domains as the API shows them, with where their warm-up stands today (read only when one warms up). */
async function domainsOf(deps: Pick<Deps, 'db' | 'config' | 'warmupClock'>, projectId: string, rows: DomainRow[]): Promise<Domain[]> {
  const today = rows.some((row) => row.warmup_enabled) ? await warmupToday(deps.db, projectId, deps.warmupClock.offsetSeconds) : undefined;
  return rows.map((row) => toDomain(row, deps.config, today));
}

export async function getDomain(deps: Deps, projectId: string, id: string): Promise<Domain> {
  const row = await findDomain(deps.db, projectId, id);
  if (!row) throw notFound('Domain');
  return (await domainsOf(deps, projectId, [row]))[0]!;
}

/** docs/decisions/domains.md: another project's id is a 404, not a 403: it does not reveal that it exists. */
export async function listProjectDomains(deps: Deps, callerProjectId: string, projectId: string): Promise<Domain[]> {
  if (projectId !== callerProjectId) throw notFound('Project');
  return domainsOf(deps, projectId, await listDomains(deps.db, projectId));
}

/**
 * PATCH /domains/{id} `{ inbound?, warmup? }`. Inbound mail (docs/inbound.md) can be turned on for a
 * verified domain only (409 otherwise), and off at any time; the domain's MX then appears in its
 * records. The warm-up (docs/streams.md) can be set on any domain: it applies once it signs mail.
 */
export async function updateDomain(deps: Deps, projectId: string, id: string, patch: DomainPatch): Promise<Domain> {
  let row = await findDomain(deps.db, projectId, id);
  if (!row) throw notFound('Domain');
  if (patch.inbound && row.status !== 'verified') {
    throw new AppError('DOMAIN_NOT_VERIFIED', {
      message: `Inbound mail needs a verified domain: ${row.domain} is still pending.`,
      suggestion: 'Publish the DKIM record, check it with GET /domains/{id}/verify, then turn inbound on.',
    });
  }
  if (patch.inbound !== undefined) row = await setDomainInbound(deps.db, projectId, id, patch.inbound);
  if (row && patch.warmup) {
    const { enabled, schedule, startedAt } = patch.warmup;
    // A warm-up turned on for the first time starts today (on the warm-up clock).
    const startedDay =
      startedAt !== undefined
        ? epochDayOfIso(startedAt)
        : (row.warmup_started_day ?? (enabled ? (await warmupToday(deps.db, projectId, deps.warmupClock.offsetSeconds)).day : null));
    row = await setDomainWarmup(deps.db, projectId, id, { enabled, schedule: schedule === undefined ? row.warmup_schedule : schedule, startedDay });
  }
  if (!row) throw notFound('Domain');
  return (await domainsOf(deps, projectId, [row]))[0]!;
}

export async function removeDomain(deps: Deps, projectId: string, id: string): Promise<void> {
  if (!(await deleteDomain(deps.db, projectId, id))) throw notFound('Domain');
}

/** GET /domains/{id}/verify: checks the DNS now and records the outcome. */
export async function verifyDomain(deps: Deps, projectId: string, id: string): Promise<Domain> {
  const row = await findDomain(deps.db, projectId, id);
  if (!row) throw notFound('Domain');
  const result = await checkDomain(dnsFor(deps.config), row, bounceHostOf(deps.config) !== undefined);
  const [updated] = await applyCheckOutcomes(deps.db, [{ projectId, id, result }]);
  if (!updated) throw notFound('Domain'); // removed while we looked
  return (await domainsOf(deps, projectId, [updated]))[0]!;
}

/**
 * Looks up each record's name (DKIM, SPF, DMARC) and decides the status from the required one:
 * `fail` when it is missing or differs, `unknown` when it could not be looked up (docs/decisions/domains.md: a
 * timeout is not a failure of the record). Every answer is kept for the records' states.
 */
export async function checkDomain(resolver: TxtResolver, row: DomainToCheck, returnPath = false): Promise<CheckOutcome> {
  const answers = await Promise.all(RECORD_KINDS.map(async (kind) => [kind, await resolver.txt(recordName(kind, row))] as const));
  const checks: RecordChecks = {};
  for (const [kind, answer] of answers) {
    if (answer.status !== 'unavailable') checks[kind] = answer.status === 'found' ? answer.records : [];
  }
  // The return path's records (docs/smtp.md), looked up when this server receives bounces:
  // recommended, so they never decide the status.
  if (returnPath) {
    const [bounceMx, bounceSpf] = await Promise.all([resolver.mx(bounceDomain(row.domain)), resolver.txt(bounceDomain(row.domain))]);
    if (bounceMx.status !== 'unavailable') checks.bounceMx = bounceMx.status === 'found' ? bounceMx.records : [];
    if (bounceSpf.status !== 'unavailable') checks.bounceSpf = bounceSpf.status === 'found' ? bounceSpf.records : [];
    // The domain's own MX, once it receives mail (docs/inbound.md).
    if (row.inbound) {
      const mx = await resolver.mx(row.domain);
      if (mx.status !== 'unavailable') checks.inboundMx = mx.status === 'found' ? mx.records : [];
    }
  }
  const dkim = answers.find(([kind]) => kind === 'dkim')![1];
  return { outcome: requiredOutcome(dkim, `v=DKIM1; k=rsa; p=${row.public_key}`), checks };
}

/**
 * A required record passes when its name holds exactly one TXT record whose joined strings equal the
 * value, surrounding whitespace aside. Exactly one: verifiers may read only the first DKIM record
 * they get (RFC 6376 §3.6.2.2 leaves it open), so a second one would make signatures fail at random.
 */
function requiredOutcome(found: TxtLookup, value: string): CheckOutcome['outcome'] {
  if (found.status === 'unavailable') return 'unknown';
  if (found.status === 'absent') return 'fail';
  return found.records.length === 1 && found.records[0]!.trim() === value ? 'pass' : 'fail';
}

/** The MX target of the bounce records, when this server receives bounces (SMTP_INBOUND_PORT; docs/smtp.md). */
export const bounceHostOf = (config: Config) => (config.smtp.inboundPort === undefined ? undefined : config.smtp.hostname);

/**
 * docs/decisions/domains.md: a sender is allowed when its domain, or a parent domain of it, is verified in this
 * project. Otherwise a 403 naming the domain (send, templates, campaigns).
 */
export async function assertSenderAllowed(db: Queryable, projectId: string, fromEmail: string): Promise<void> {
  if (await signingKeyFor(db, projectId, fromEmail)) return;
  throw senderNotVerified(fromEmail);
}

/**
 * The domain that signs mail from each sender (signingKeyFor's, without the key), in one statement
 * for many senders; undefined where the sender is not allowed (senderNotVerified).
 */
export async function signingDomainsFor(db: Queryable, senders: Array<{ projectId: string; fromEmail: string }>): Promise<Array<string | undefined>> {
  return findSenderDomains(
    db,
    senders.map((sender) => ({ projectId: sender.projectId, names: senderDomains(sender.fromEmail) })),
  );
}

/** The 403 of a sender whose domain is not verified in the project (docs/decisions/domains.md). */
export function senderNotVerified(fromEmail: string): AppError {
  const domain = fromEmail.slice(fromEmail.lastIndexOf('@') + 1).toLowerCase() || fromEmail;
  return new AppError('SENDER_DOMAIN_NOT_VERIFIED', {
    message: `The sender domain ${domain} is not verified in this project.`,
    details: { domain },
    suggestion: `Add ${domain} (or a parent domain) with POST /domains, publish its DNS records, then verify it with GET /domains/{id}/verify.`,
  });
}

/** The DKIM key of the most specific verified domain covering `fromEmail` (docs/decisions/sending.md: d= and s=). */
export async function signingKeyFor(
  db: Queryable,
  projectId: string,
  fromEmail: string,
): Promise<{ domainName: string; selector: string; privateKey: string; checks: RecordChecks | null } | undefined> {
  const names = senderDomains(fromEmail);
  if (names.length === 0) return undefined;
  const row = await findSenderKey(db, projectId, names);
  return row && { domainName: row.domain, selector: row.selector, privateKey: row.private_key, checks: row.record_checks };
}

// The background check (domains.jobs.ts): small batches, few lookups in flight at once.
const CHECK_BATCH = 50;
const CHECK_CONCURRENCY = 4;

/**
 * Re-checks every pending and verified domain not checked within half the interval, oldest first,
 * in batches of CHECK_BATCH with CHECK_CONCURRENCY lookups in flight. Stops after `budgetMs`; the
 * next run picks up the rest. Returns how many domains it checked.
 */
export async function recheckDueDomains(deps: Deps, budgetMs: number): Promise<number> {
  const resolver = dnsFor(deps.config);
  const started = Date.now();
  let checked = 0;
  for (;;) {
    const due = await findDueDomains(deps.db, deps.config.domainCheckIntervalSeconds / 2, CHECK_BATCH);
    const outcomes = await mapLimit(due, CHECK_CONCURRENCY, async (row) => ({
      projectId: row.project_id,
      id: row.id,
      result: await checkDomain(resolver, row, bounceHostOf(deps.config) !== undefined),
    }));
    await applyCheckOutcomes(deps.db, outcomes);
    checked += due.length;
    if (due.length < CHECK_BATCH || Date.now() - started > budgetMs) return checked;
  }
}

async function mapLimit<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
