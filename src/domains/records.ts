import type { DnsRecord, RecordState } from './domains.schemas.ts';

/** The three records of a domain (docs/decisions/domains.md), by what they are for. */
export type RecordKind = 'dkim' | 'spf' | 'dmarc';

/**
 * What the last check found at each record's name: every TXT value there (strings joined), an empty
 * list when the DNS answered that there is none. A kind is absent when it was never answered
 * (not checked yet, or the lookup timed out: docs/decisions/domains.md keeps the last answer then).
 */
export type RecordChecks = Partial<Record<RecordKind | 'bounceMx' | 'bounceSpf' | 'inboundMx', string[]>>;

/** The return-path subdomain of a domain (docs/smtp.md): its MX receives bounces and complaints. */
export const bounceDomain = (domain: string) => `bounces.${domain}`;

const pointsAt = (exchanges: string[] | undefined, hostname: string) => (exchanges ?? []).some((exchange) => exchange.toLowerCase().replace(/\.$/, '') === hostname.toLowerCase());

/** Whether the last check found the bounce MX pointing at `hostname` (SMTP_HOSTNAME). */
export const bounceMxPublished = (checks: RecordChecks | null, hostname: string) => pointsAt(checks?.bounceMx, hostname);

export type DomainKeyFacts = { domain: string; selector: string; public_key: string; record_checks: RecordChecks | null; inbound?: boolean };

export const recordName = (kind: RecordKind, row: Pick<DomainKeyFacts, 'domain' | 'selector'>) =>
  kind === 'dkim' ? `${row.selector}._domainkey.${row.domain}` : kind === 'spf' ? row.domain : `_dmarc.${row.domain}`;

export const RECORD_KINDS: readonly RecordKind[] = ['dkim', 'spf', 'dmarc'];

const isSpf = (value: string) => /^v=spf1(\s|$)/i.test(value.trim());
const isDmarc = (value: string) => /^v=DMARC1\s*(;|$)/i.test(value.trim());
const DMARC_DEFAULT = 'v=DMARC1; p=none;';

/** RFC 7208 §4.6.2: `+` is the default qualifier, so `+ip4:x` and `ip4:x` are the same mechanism. */
const sameTerm = (a: string, b: string) => a.replace(/^\+/, '').toLowerCase() === b.replace(/^\+/, '').toLowerCase();

/**
 * One SPF record holding the existing ones' terms and the relay's mechanisms (RFC 7208 §3.2: a
 * domain has one SPF record; two are a permanent error). Their `all` (or `redirect=`) stays last;
 * without either, the record ends with `~all`. Our mechanisms go before it, in configured order.
 */
export function mergeSpf(existing: string[], mechanisms: readonly string[]): string {
  const terms: string[] = [];
  let all: string | undefined;
  let redirect: string | undefined;
  for (const record of existing) {
    for (const term of record.trim().split(/\s+/).slice(1)) {
      if (/^[+?~-]?all$/i.test(term)) all ??= term;
      else if (/^redirect=/i.test(term)) redirect ??= term;
      else if (!terms.some((known) => sameTerm(known, term))) terms.push(term);
    }
  }
  for (const mechanism of mechanisms) if (!terms.some((known) => sameTerm(known, mechanism))) terms.push(mechanism);
  // An `all` makes a redirect= meaningless (RFC 7208 §6.1): only one of them ends the record.
  return ['v=spf1', ...terms, all ?? redirect ?? '~all'].join(' ');
}

/** Whether one SPF record authorizes every configured mechanism. */
const authorizes = (record: string, mechanisms: readonly string[]) => {
  const terms = record.trim().split(/\s+/).slice(1);
  return mechanisms.every((mechanism) => terms.some((term) => sameTerm(term, mechanism)));
};

const SPF_NOTE_UNCONFIGURED =
  'SPF: SPF_MECHANISMS is not configured on this server, so this record authorizes no relay yet: receivers soft-fail SPF and DMARC rests on DKIM alone. Ask the operator for the relay’s mechanisms (for example include:amazonses.com).';
const SPF_NOTE =
  'SPF: authorizes the relay this server sends through. A domain may have only one SPF record: when it already has one, publish the merged value shown here in its place.';
const DMARC_NOTE = 'DMARC: p=none only reports; tighten to quarantine or reject once your mail passes. An existing DMARC record is kept as it is.';

/**
 * The records a domain's owner publishes (docs/decisions/domains.md), each with its state from the last check:
 * `found` (published as needed), `wrong_value` (something else is there; `found` lists it),
 * `missing` (nothing there), `not_checked`. SPF's value is advice: the relay's mechanisms, merged
 * into the SPF record the domain already has; DMARC's is the domain's own policy once it has one.
 */
export function domainRecords(row: DomainKeyFacts, spfMechanisms: readonly string[], bounceHost?: string): DnsRecord[] {
  const checks = row.record_checks ?? {};
  const dkimValue = `v=DKIM1; k=rsa; p=${row.public_key}`;
  const dkimFound = checks.dkim;
  const dkim: DnsRecord = {
    type: 'TXT',
    name: recordName('dkim', row),
    value: dkimValue,
    required: true,
    state: stateOf(dkimFound, (found) => (found.length === 1 && found[0]!.trim() === dkimValue ? 'found' : 'wrong_value')),
    found: dkimFound ?? [],
  };

  const spfFound = checks.spf?.filter(isSpf);
  const spfState = stateOf(spfFound, (found) => (found.length === 1 && authorizes(found[0]!, spfMechanisms) ? 'found' : 'wrong_value'));
  const spf: DnsRecord = {
    type: 'TXT',
    name: recordName('spf', row),
    value: spfState === 'found' ? spfFound![0]!.trim() : mergeSpf(spfFound ?? [], spfMechanisms),
    required: false,
    note: spfMechanisms.length ? SPF_NOTE : SPF_NOTE_UNCONFIGURED,
    state: spfState,
    found: spfFound ?? [],
  };

  const dmarcFound = checks.dmarc;
  const dmarcState = stateOf(dmarcFound, (found) => (found.filter(isDmarc).length === 1 ? 'found' : 'wrong_value'));
  const dmarc: DnsRecord = {
    type: 'TXT',
    name: recordName('dmarc', row),
    value: dmarcState === 'found' ? dmarcFound!.find(isDmarc)!.trim() : DMARC_DEFAULT,
    required: false,
    note: DMARC_NOTE,
    state: dmarcState,
    found: dmarcFound ?? [],
  };
  if (!bounceHost) return [dkim, spf, dmarc];
  return [dkim, spf, dmarc, ...bounceRecords(row, spfMechanisms, bounceHost), ...(row.inbound ? [inboundMx(row, bounceHost)] : [])];
}

const INBOUND_MX_NOTE =
  'Inbound mail: the MX of the domain itself, so mail to any of its addresses reaches this server. It replaces the MX records the domain has: mail then no longer reaches a mailbox provider there.';

/** The domain's own MX (docs/inbound.md), shown once inbound is on; recommended, never decides `verified`. */
function inboundMx(row: DomainKeyFacts, hostname: string): DnsRecord {
  const found = row.record_checks?.inboundMx;
  return {
    type: 'MX',
    name: row.domain,
    value: hostname,
    priority: 10,
    required: false,
    note: INBOUND_MX_NOTE,
    state: stateOf(found, () => (pointsAt(found, hostname) ? 'found' : 'wrong_value')),
    found: found ?? [],
  };
}

const BOUNCE_MX_NOTE =
  'Return path (recommended): bounces and complaints from any relay come back to this server, and the envelope sender becomes an address at this subdomain, so SPF aligns with DMARC under relaxed alignment.';
const BOUNCE_SPF_NOTE = 'Return path SPF: authorizes the relay for the envelope sender at the bounce subdomain.';

/** The bounce MX and its SPF (docs/smtp.md), recommended, not required for `verified`. */
function bounceRecords(row: DomainKeyFacts, spfMechanisms: readonly string[], hostname: string): DnsRecord[] {
  const checks = row.record_checks ?? {};
  const name = bounceDomain(row.domain);
  const mx: DnsRecord = {
    type: 'MX',
    name,
    value: hostname,
    priority: 10,
    required: false,
    note: BOUNCE_MX_NOTE,
    state: stateOf(checks.bounceMx, () => (bounceMxPublished(checks, hostname) ? 'found' : 'wrong_value')),
    found: checks.bounceMx ?? [],
  };
  const spfFound = checks.bounceSpf?.filter(isSpf);
  const spf: DnsRecord = {
    type: 'TXT',
    name,
    value: mergeSpf(spfFound ?? [], spfMechanisms),
    required: false,
    note: BOUNCE_SPF_NOTE,
    state: stateOf(spfFound, (found) => (found.length === 1 && authorizes(found[0]!, spfMechanisms) ? 'found' : 'wrong_value')),
    found: spfFound ?? [],
  };
  return [mx, spf];
}

function stateOf(found: string[] | undefined, judge: (found: string[]) => RecordState): RecordState {
  if (found === undefined) return 'not_checked';
  if (found.length === 0) return 'missing';
  return judge(found);
}
