import { createRequire } from 'node:module';
import type * as Core from '@zxcvbn-ts/core';
import type { ZxcvbnFactory } from '@zxcvbn-ts/core';
import type * as Common from '@zxcvbn-ts/language-common';
import type * as En from '@zxcvbn-ts/language-en';
import { z } from 'zod';

/**
 * The password policy (docs/decisions/accounts.md lengths, plus a strength check): zxcvbn's estimate over its
 * maintained lists of common passwords, names and words, keyboard walks, repeats and dates. A score
 * below MIN_SCORE (under ~10^6 guesses: `12345678`, `password`, `P@ssw0rd`, eight spaces) is
 * refused; no composition rules (NIST SP 800-63B §5.1.1.2).
 */
export const MIN_SCORE = 2;
/** zxcvbn's work grows with length; a longer password is judged on its first 64 characters. */
const CHECKED_LENGTH = 64;

let factory: ZxcvbnFactory | undefined;
// The dictionaries take a moment to load and about 30 MB of memory: they are loaded on the first
// password set, not at start-up, so a process that never checks a password (a worker) never holds
// them. `require` keeps the check synchronous, as the schemas' refinements are.
const load = createRequire(import.meta.url);
const zxcvbn = () => {
  if (factory) return factory;
  const { ZxcvbnFactory: Factory } = load('@zxcvbn-ts/core') as typeof Core;
  const common = load('@zxcvbn-ts/language-common') as typeof Common;
  const en = load('@zxcvbn-ts/language-en') as typeof En;
  factory = new Factory({
    dictionary: { ...common.dictionary, ...en.dictionary },
    graphs: common.adjacencyGraphs,
    translations: en.translations,
    maxLength: CHECKED_LENGTH,
  });
  return factory;
};

/**
 * What an account's own details give an attacker for free: the address, its local part and the
 * local part's pieces (`jane.doe+news` → jane, doe, news). zxcvbn rates a password built from them
 * as guessable as a dictionary word, so a password equal to the local part is refused.
 */
export function accountInputsOf(email: string): string[] {
  const address = email.trim().toLowerCase();
  const local = address.split('@')[0] ?? '';
  const pieces = local.split(/[._+-]+/).filter((piece) => piece.length >= 3);
  return [...new Set([address, local, ...pieces])];
}

/** Why `password` is too weak, or undefined. `context` (the account's own inputs) counts as guessable too. */
export function weakPasswordReason(password: string, context: string[] = []): string | undefined {
  const result = zxcvbn().check(password, context);
  if (result.score >= MIN_SCORE) return undefined;
  const hint = [result.feedback.warning, ...result.feedback.suggestions].filter(Boolean).join(' ');
  return `This password is too easy to guess${hint ? `: ${hint}` : '.'}`;
}

/** A new password: 8–128 characters and not among the easily guessed. */
export const newPasswordSchema = z
  .string()
  .min(8)
  .max(128)
  .superRefine((password, context) => {
    // A password of the wrong length already has its issue.
    if (password.length < 8 || password.length > 128) return;
    const reason = weakPasswordReason(password);
    if (reason) context.addIssue({ code: 'custom', message: reason, params: { code: 'weak_password' } });
  });

/** The 422 for a password too easy to guess (the same field error the schemas raise). */
export function weakPasswordIssue(field: string, reason: string) {
  return { field, message: reason, code: 'weak_password' };
}
