import { domainToASCII } from 'node:url';
import { ALIAS_SERVICES, disposableDomains, freeMailDomains, GENUINE_LOOKALIKES, TLD_TYPOS, WELL_KNOWN_DOMAINS } from './verify.lists.ts';

/** The offline checks of /v1/verify (docs/decisions/verify.md steps 1–6): pure functions of the address. */

export type Address = { local: string /** ASCII (punycode), lower case */; domain: string };
export type SyntaxCheck = { ok: true; address: Address } | { ok: false; reason: string };

// RFC 5322 §3.2.3 atext; quoted local parts are valid but so rare in practice that they are refused.
const ATOM = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
// RFC 1035 §2.3.1 as relaxed by RFC 1123 §2.1 (a label may start with a digit).
const LABEL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/;
const fail = (reason: string): SyntaxCheck => ({ ok: false, reason });

/** Step 1: RFC 5321 lengths and a pragmatic dot-atom grammar. Returns the first problem found. */
export function checkSyntax(email: string): SyntaxCheck {
  if (email.length === 0) return fail('The address is empty.');
  if (/\s/.test(email)) return fail('The address contains whitespace.');
  const at = email.lastIndexOf('@');
  if (at === -1) return fail('The address has no @ between the local part and the domain.');
  const local = email.slice(0, at);
  const rawDomain = email.slice(at + 1);
  if (local.length === 0) return fail('The address has nothing before the @.');
  if (rawDomain.length === 0) return fail('The address has no domain after the @.');
  if (local.includes('@')) return fail('The address contains more than one @.');

  // RFC 5321 §4.5.3.1.1: the local part is at most 64 octets.
  const localOctets = Buffer.byteLength(local);
  if (localOctets > 64) return fail(`The part before the @ is ${localOctets} characters long; at most 64 are allowed.`);
  if (local.startsWith('.') || local.endsWith('.')) return fail('The part before the @ cannot start or end with a dot.');
  if (local.includes('..')) return fail('The part before the @ cannot contain two dots in a row.');
  if (!local.split('.').every((atom) => ATOM.test(atom))) {
    return fail('The part before the @ contains characters that are not allowed in an email address.');
  }

  const domainCheck = checkDomain(rawDomain);
  if (typeof domainCheck !== 'string') return domainCheck;
  // RFC 5321 §4.5.3.1.3 limits a path to 256 octets, which leaves 254 for the address itself.
  const length = localOctets + 1 + domainCheck.length;
  if (length > 254) return fail(`The address is ${length} characters long; at most 254 are allowed.`);
  return { ok: true, address: { local, domain: domainCheck } };
}

/** The domain in ASCII lower case, or why it is not a valid mail domain. */
function checkDomain(raw: string): string | SyntaxCheck {
  if (raw.startsWith('[')) return fail('Addresses at an IP address literal are not accepted; use a domain name.');
  // An internationalized domain is checked, and later looked up, in its punycode form (RFC 5890).
  const domain = /^[\x00-\x7f]*$/.test(raw) ? raw.toLowerCase() : domainToASCII(raw);
  if (!domain) return fail('The domain is not a valid internationalized domain name.');
  if (domain.length > 253) return fail('The domain is longer than 253 characters.');
  const labels = domain.split('.');
  if (labels.some((label) => label.length === 0)) {
    return fail('The domain cannot start or end with a dot or contain two dots in a row.');
  }
  if (labels.length < 2) return fail(`The domain ${domain} has no top-level domain (like .com).`);
  for (const label of labels) {
    if (label.length > 63) return fail('A part of the domain is longer than 63 characters.');
    if (!LABEL.test(label)) {
      return fail(`The domain part "${label}" may only contain letters, digits and hyphens, and cannot start or end with a hyphen.`);
    }
  }
  if (/^\d+$/.test(labels.at(-1)!)) return fail('The top-level domain cannot be all digits.');
  return domain;
}

/** The domain itself, then each parent that still has two labels: a.b.example.com → … → example.com. */
function selfAndParents(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_, i) => labels.slice(i).join('.'));
}

/** Step 2: a `+tag` in the local part (RFC 5233 subaddressing). */
export const isPlusAddressed = (address: Address) => address.local.includes('+');

/** Step 3: the domain, or a parent of it, is on the disposable list (which includes wildcard entries). */
export function disposableMatch(domain: string): string | undefined {
  const list = disposableDomains();
  return selfAndParents(domain).find((candidate) => list.has(candidate));
}

/** Step 4: the forwarding service the domain (or a parent of it) belongs to. */
export function aliasService(domain: string): { domain: string; service: string } | undefined {
  const match = selfAndParents(domain).find((candidate) => ALIAS_SERVICES.has(candidate));
  return match ? { domain: match, service: ALIAS_SERVICES.get(match)! } : undefined;
}

/** Step 5: a free webmail provider (exact domain). */
export const isFreeMailDomain = (domain: string) => freeMailDomains().has(domain);

const WELL_KNOWN = new Set(WELL_KNOWN_DOMAINS);

/**
 * Step 6: the domain that was probably meant, or undefined. A mistyped TLD (`.con`) is corrected;
 * then the domain is compared with the well-known providers by Damerau–Levenshtein distance: up to 2
 * when the provider's name has 6 letters or more; for shorter names one edit easily makes another
 * real domain (gmc.com, love.com, wahoo.com), so 5 letters allow one slip of a finger (a swapped,
 * dropped or doubled letter, or a neighbouring key), 4 letters a slip but no other key, and shorter
 * names only a slip in the TLD. A domain on the free-mail list is a real provider unless it is one
 * edit from a well-known one (the list holds typo-squatting domains such as gmial.com).
 */
export function suggestDomain(domain: string): string | undefined {
  if (WELL_KNOWN.has(domain) || GENUINE_LOOKALIKES.has(domain) || aliasService(domain)) return undefined;
  const labels = domain.split('.');
  const fixedTld = TLD_TYPOS.get(labels.at(-1)!);
  const candidate = fixedTld ? [...labels.slice(0, -1), fixedTld].join('.') : domain;
  if (WELL_KNOWN.has(candidate)) return candidate;
  const near = nearestWellKnown(candidate);
  if (near && (near.distance === 1 || !isFreeMailDomain(domain))) return near.domain;
  return fixedTld ? candidate : undefined;
}

function nearestWellKnown(domain: string): { domain: string; distance: number } | undefined {
  let best: { domain: string; distance: number } | undefined;
  for (const known of WELL_KNOWN_DOMAINS) {
    const nameLength = known.indexOf('.');
    if (Math.abs(known.length - domain.length) > 2) continue;
    let distance: number;
    const tld = known.lastIndexOf('.');
    // Same name, other TLD: only a slip is a typo (gmail.co); hotmail.fi or yahoo.ca are real.
    if (domain.slice(0, domain.lastIndexOf('.')) === known.slice(0, tld)) {
      distance = isSlip(domain.slice(domain.lastIndexOf('.') + 1), known.slice(tld + 1)) ? 1 : Infinity;
    } else if (nameLength <= 3) continue;
    else if (nameLength <= 5) distance = isSlip(domain, known) || (nameLength === 5 && isNeighbourKey(domain, known)) ? 1 : Infinity;
    else distance = damerauLevenshtein(domain, known);
    const limit = nameLength >= 6 ? 2 : 1;
    if (distance <= limit && (!best || distance < best.distance)) best = { domain: known, distance };
  }
  return best;
}

/** `typed` is `meant` with two neighbouring letters swapped, one letter dropped, or one doubled. */
export function isSlip(typed: string, meant: string): boolean {
  if (typed.length === meant.length) {
    const i = [...typed].findIndex((c, k) => c !== meant[k]);
    return i >= 0 && typed[i] === meant[i + 1] && typed[i + 1] === meant[i] && typed.slice(i + 2) === meant.slice(i + 2);
  }
  const [short, long] = typed.length < meant.length ? [typed, meant] : [meant, typed];
  if (long.length !== short.length + 1) return false;
  const i = [...long].findIndex((c, k) => c !== short[k]);
  const at = i === -1 ? short.length : i;
  if (long.slice(0, at) + long.slice(at + 1) !== short) return false;
  // A dropped letter may be any letter; an extra one must repeat its neighbour (gmaill, ggmail).
  return typed.length < meant.length || long[at] === long[at - 1] || long[at] === long[at + 1];
}

const KEY_ROWS = ['1234567890', 'qwertyuiop', 'asdfghjkl', 'zxcvbnm'];
const KEY_AT = new Map([...KEY_ROWS.entries()].flatMap(([row, keys]) => [...keys].map((key, i) => [key, [row, i] as const])));

/** Same length, one letter differs, and the two letters are neighbours on a QWERTY keyboard. */
export function isNeighbourKey(typed: string, meant: string): boolean {
  if (typed.length !== meant.length) return false;
  const diffs = [...typed].flatMap((c, k) => (c === meant[k] ? [] : [k]));
  if (diffs.length !== 1) return false;
  const a = KEY_AT.get(typed[diffs[0]!]!);
  const b = KEY_AT.get(meant[diffs[0]!]!);
  if (!a || !b) return false;
  // Staggered rows: key i touches i-1 and i+1 in its row, i and i+1 above, i-1 and i below.
  const offset = b[1] - a[1];
  if (b[0] === a[0]) return Math.abs(offset) === 1;
  if (b[0] === a[0] - 1) return offset === 0 || offset === 1;
  if (b[0] === a[0] + 1) return offset === 0 || offset === -1;
  return false;
}

/** Optimal-string-alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function damerauLevenshtein(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
