import type { ParsedMail } from 'mailparser';
import { classifyRefusal } from '../delivery/bounces.ts';

/**
 * What a message to a VERP address says about the record it names (docs/smtp.md):
 * - `bounce`: a DSN (RFC 3464) whose recipient failed, classified by the same rules as an SMTP
 *   answer at delivery (src/delivery/bounces.ts): `hard`, `soft` or `failed`.
 * - `delayed`: a DSN that reports a delay, a relay or a delivery: no change.
 * - `complaint`: an ARF report (RFC 5965).
 * - `auto_reply`: an automatic answer (RFC 3834 Auto-Submitted, or the usual vacation headers).
 * - `other`: anything else (a person answering the return path): nothing to record.
 */
export type ReportKind =
  | { kind: 'bounce'; class: 'hard' | 'soft' | 'failed'; error: string; status: string | null }
  | { kind: 'delayed'; status: string | null }
  | { kind: 'complaint'; feedbackType: string | null }
  | { kind: 'auto_reply'; subject: string | null }
  | { kind: 'other' };

export function readReport(parsed: ParsedMail): ReportKind {
  const contentType = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const reportType = contentType?.value?.toLowerCase() === 'multipart/report' ? contentType.params?.['report-type']?.toLowerCase() : undefined;
  const part = (type: string) => parsed.attachments.find((a) => a.contentType.toLowerCase() === type);
  const dsn = part('message/delivery-status') ?? part('message/global-delivery-status');
  if (reportType === 'delivery-status' || (reportType === undefined && dsn)) return dsn ? readDsn(dsn.content.toString('utf8')) : { kind: 'other' };
  const arf = part('message/feedback-report');
  if (reportType === 'feedback-report' || arf) {
    const fields = arf ? fieldBlocks(arf.content.toString('utf8'))[0] : undefined;
    return { kind: 'complaint', feedbackType: fields?.get('feedback-type') ?? null };
  }
  if (isAutoReply(parsed)) return { kind: 'auto_reply', subject: parsed.subject ?? null };
  return { kind: 'other' };
}

/**
 * RFC 3464 §2.3: per-recipient fields after the per-message ones. The first recipient that failed
 * decides (a VERP address names one record, which has one recipient); its Status is the enhanced
 * code and its Diagnostic-Code, when an SMTP reply, the text, together classified as that reply.
 */
function readDsn(text: string): ReportKind {
  const recipients = fieldBlocks(text).filter((fields) => fields.has('action') || fields.has('final-recipient'));
  const failed = recipients.find((fields) => fields.get('action')?.toLowerCase() === 'failed');
  if (!failed) return { kind: 'delayed', status: recipients[0]?.get('status') ?? null };
  const status = /^([245])\.\d{1,3}\.\d{1,3}/.exec(failed.get('status') ?? '')?.[0] ?? null;
  const diagnostic = failed.get('diagnostic-code') ?? '';
  const smtpReply = /^\s*smtp\s*;\s*(.*)$/is.exec(diagnostic)?.[1]?.replace(/\s+/g, ' ').trim();
  const replyCode = smtpReply ? /^([245]\d\d)[ -]/.exec(smtpReply)?.[1] : undefined;
  const code = Number(replyCode ?? (status?.startsWith('4') ? 450 : 550));
  // The reply without its own codes, behind the DSN's Status: the Status field is authoritative.
  const words = (smtpReply ?? diagnostic).replace(/^([245]\d\d)[ -]/, '').replace(/^[245]\.\d{1,3}\.\d{1,3}\s*/, '').trim();
  const response = `${code} ${status ? `${status} ` : ''}${words}`.trim();
  if (code < 500) return { kind: 'delayed', status };
  const classified = classifyRefusal({ responseCode: code, response, message: response });
  if (classified.class === 'retry') return { kind: 'delayed', status };
  return { kind: 'bounce', class: classified.class, error: classified.error, status };
}

/** Header-style field blocks separated by blank lines (RFC 3464 §2.1, RFC 5965 §3), names lower-cased. */
function fieldBlocks(text: string): Array<Map<string, string>> {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n\s*\n/)
    .map((block) => {
      const fields = new Map<string, string>();
      let last: string | undefined;
      for (const line of block.split('\n')) {
        if (/^[ \t]/.test(line) && last) fields.set(last, `${fields.get(last)} ${line.trim()}`);
        else {
          const colon = line.indexOf(':');
          if (colon <= 0) continue;
          last = line.slice(0, colon).trim().toLowerCase();
          if (!fields.has(last)) fields.set(last, line.slice(colon + 1).trim());
        }
      }
      return fields;
    })
    .filter((fields) => fields.size > 0);
}

/** RFC 3834 §5: Auto-Submitted other than "no"; and the headers vacation responders use without it. */
function isAutoReply(parsed: ParsedMail): boolean {
  const header = (name: string) => {
    const value = parsed.headers.get(name);
    return typeof value === 'string' ? value.toLowerCase().trim() : undefined;
  };
  const autoSubmitted = header('auto-submitted');
  if (autoSubmitted && !autoSubmitted.startsWith('no')) return true;
  return header('x-autoreply') === 'yes' || header('x-autorespond') !== undefined || /^auto[_-]reply$/.test(header('precedence') ?? '');
}
