import type { Answer, MailDns } from './verify.dns.ts';
import { aliasService, checkSyntax, disposableMatch, isFreeMailDomain, isPlusAddressed, suggestDomain } from './verify.rules.ts';
import type { Verification } from './verify.schemas.ts';

/**
 * POST /v1/verify (docs/decisions/verify.md): the checks in the contract's order. `valid` needs good syntax, a
 * domain that exists and MX records; every flag that made the address invalid, and every notable
 * one, adds a sentence to `reasons`. A DNS answer that could not be had leaves its flag false and
 * the address invalid with a "could not be checked" reason: unknown is not the same as absent.
 */
export async function verifyEmail(dns: MailDns, email: string): Promise<Verification> {
  const result: Verification = {
    email,
    valid: false,
    isDisposable: false,
    isAlias: false,
    isTypo: false,
    isPlusAddressed: false,
    isPersonalEmail: false,
    domainExists: false,
    hasWebsite: false,
    hasMxRecords: false,
    reasons: [],
  };
  const { reasons } = result;

  const syntax = checkSyntax(email);
  if (!syntax.ok) {
    reasons.push(syntax.reason);
    return result;
  }
  const { local, domain } = syntax.address;

  result.isPlusAddressed = isPlusAddressed(syntax.address);
  if (result.isPlusAddressed) {
    const base = local.slice(0, local.indexOf('+'));
    reasons.push(
      base ? `The address uses plus addressing: mail to it reaches the mailbox of ${base}@${domain}.` : 'The address uses plus addressing (a + in the part before the @).',
    );
  }

  const disposable = disposableMatch(domain);
  result.isDisposable = disposable !== undefined;
  if (disposable) reasons.push(`${disposable} is a disposable email provider.`);

  const alias = aliasService(domain);
  result.isAlias = alias !== undefined;
  if (alias) reasons.push(`${alias.domain} is an email forwarding service (${alias.service}): the address is an alias for another mailbox.`);

  // A disposable or forwarding domain is not a personal mailbox, though the free-mail list holds some.
  result.isPersonalEmail = !disposable && !alias && isFreeMailDomain(domain);
  if (result.isPersonalEmail) reasons.push(`${domain} is a free personal email provider.`);

  const suggestion = suggestDomain(domain);
  if (suggestion) {
    result.isTypo = true;
    result.suggestedEmail = `${local}@${suggestion}`;
    reasons.push(`The domain ${domain} looks like a typo of ${suggestion}: did you mean ${result.suggestedEmail}?`);
  }

  // NS first: a domain that does not exist needs no further lookups.
  const ns = await dns.ns(domain);
  if (ns.status === 'unavailable') {
    reasons.push(`The domain ${domain} could not be checked: ${describeFailure(ns)}. Try again later.`);
    return result;
  }
  if (ns.status === 'absent' && ns.nxdomain) {
    reasons.push(`The domain ${domain} does not exist.`);
    return result;
  }
  // NODATA (no NS at a name that exists, as for a subdomain inside its parent's zone) still proves
  // the name exists: NXDOMAIN is the only answer that says otherwise (RFC 2308 §2.2).
  result.domainExists = true;

  const [mx, a, aaaa] = await Promise.all([dns.mx(domain), dns.a(domain), dns.aaaa(domain)]);
  result.hasMxRecords = mx.status === 'found' && mx.records.some((record) => record.exchange !== '');
  result.hasWebsite = a.status === 'found' || aaaa.status === 'found';

  if (mx.status === 'unavailable') {
    reasons.push(`The MX records of ${domain} could not be checked: ${describeFailure(mx)}. Try again later.`);
  } else if (mx.status === 'found' && !result.hasMxRecords) {
    // RFC 7505: a single MX with the root as exchange declares that the domain accepts no mail.
    reasons.push('The domain publishes a null MX record, so it does not accept email.');
  } else if (!result.hasMxRecords) {
    reasons.push('The domain has no MX records, so it cannot receive email.');
  }

  result.valid = result.hasMxRecords;
  return result;
}

function describeFailure(answer: Extract<Answer<unknown>, { status: 'unavailable' }>): string {
  switch (answer.code) {
    case 'ETIMEOUT':
      return 'the DNS lookup timed out';
    case 'ESERVFAIL':
      return 'the DNS server reported a failure';
    case 'EREFUSED':
    case 'ECONNREFUSED':
      return 'the DNS server refused the query';
    default:
      return `the DNS lookup failed (${answer.code})`;
  }
}
