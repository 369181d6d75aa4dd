/**
 * What an SMTP refusal means for the record and the address (docs/decisions/sending.md bounce classes, after
 * RFC 3463's enhanced status codes `class.subject.detail`; docs/decisions/sending.md):
 *
 * - `hard`: the address does not exist (5.1.x, or 5.0.0 / a bare 5xx whose text says the user is
 *   unknown). BOUNCED, the address is suppressed and its contact unsubscribed.
 * - `soft`: the mailbox exists but cannot take this message now (5.2.x: full, disabled, message
 *   over its limit; or a bare 552). Retried like a 4xx, never suppressed.
 * - `failed`: refused for another permanent reason, mostly about the sender or the message
 *   (5.7.x policy, reputation and spam blocks, 5.1.7/5.1.8 bad sender, 5.3–5.6). FAILED, no
 *   suppression: the address did nothing wrong.
 * - `retry`: a 4xx or no answer at all (connection refused, timeout, dropped).
 */
export type RefusalClass = 'hard' | 'soft' | 'failed' | 'retry';

/** The parts of an SMTP client error that matter (nodemailer's `responseCode`, `response`, `command`). */
export type SmtpRefusal = { responseCode?: number; response?: string; command?: string; message: string };

// The first line's enhanced status code: "550 5.1.1 …" or "550-5.1.1 …" (multi-line replies).
const ENHANCED = /^\d{3}[ -]([245])\.(\d{1,3})\.(\d{1,3})\b/;

/**
 * Texts that mean "no such mailbox" in replies without an enhanced code (or with 5.0.0), as sent by
 * Postfix, Exim, Exchange, qmail and the large providers.
 */
const UNKNOWN_USER =
  /\b(user|recipient|mailbox|address|account)\b[^\n]{0,40}\b(unknown|not found|does not exist|doesn'?t exist|no longer (exists|available)|invalid|not exist|rejected: user unknown)\b|\bno such (user|recipient|mailbox|address|account)\b|\bunknown (user|recipient|mailbox|address|local ?part)\b|\binvalid (recipient|mailbox|address)\b|\bmailbox unavailable\b|\buser doesn'?t have an? .* account\b/i;

/** Texts of a full mailbox in replies without an enhanced code (or with 5.0.0). */
const MAILBOX_FULL = /\b(mailbox|quota|storage)\b[^\n]{0,30}\b(full|exceeded|over)\b|\bover quota\b|\binsufficient storage\b/i;

/** Words of a block about the sender or the content, which a reply may mix with "mailbox unavailable". */
const BLOCK = /\b(spam|blocked|block ?list|black ?list|policy|reputation|spf|dkim|dmarc|rate)\b/i;

export type Classified = { class: RefusalClass; error: string; enhanced: string | null };

/** Classifies one refused hand-off; `error` is what the record and its event show. */
export function classifyRefusal(refusal: SmtpRefusal): Classified {
  const response = (refusal.response ?? refusal.message).slice(0, 500);
  const code = refusal.responseCode;
  if (code === undefined || code < 500 || code > 599) {
    return { class: 'retry', error: code ? `SMTP ${code}: ${response}` : `Connection failed: ${response}`, enhanced: null };
  }
  const match = ENHANCED.exec(response);
  const enhanced = match ? `${match[1]}.${match[2]}.${match[3]}` : null;
  const error = `SMTP ${code}: ${response}`;
  // A refused MAIL FROM is about the sender, whatever its code says.
  if (refusal.command === 'MAIL FROM') return { class: 'failed', error, enhanced };
  if (match && match[1] === '4') return { class: 'retry', error, enhanced };
  const subject = match ? Number(match[2]) : 0;
  const detail = match ? Number(match[3]) : 0;
  // X.1.7 and X.1.8 are the sender's address; X.1.0 says nothing more than 5.0.0.
  if (subject === 1 && detail !== 0 && detail !== 7 && detail !== 8) return { class: 'hard', error, enhanced };
  if (subject === 2) return { class: 'soft', error, enhanced };
  // No enhanced code, or one that says nothing (5.0.0, 5.1.0, and 5.5.0, which Outlook.com gives
  // its unknown users): only the text tells an unknown user or a full mailbox from a block.
  if (!match || (detail === 0 && (subject === 0 || subject === 1 || subject === 5))) {
    if (UNKNOWN_USER.test(response) && !BLOCK.test(response)) return { class: 'hard', error, enhanced };
    if ((code === 552 && !match) || MAILBOX_FULL.test(response)) return { class: 'soft', error, enhanced };
  }
  return { class: 'failed', error, enhanced };
}

const SOFT_BOUNCE = 'Soft bounce, retrying: ';

/**
 * The error a soft-bounced record waits with. A record announces its soft bounce (email.bounced,
 * bounceType soft) once, when the answer before was not one too: a mailbox full for a day would
 * otherwise send an event at every retry.
 */
export const softBounceError = (error: string) => SOFT_BOUNCE + error;
export const isSoftBounceError = (error: string | null) => error?.startsWith(SOFT_BOUNCE) ?? false;
