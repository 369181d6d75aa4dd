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

export function readReport(raw: Buffer, parsed: ParsedMail): ReportKind {
  const contentType = parsed.headers.get('content-type') as { value?: string; params?: Record<string, string> } | undefined;
  const isReport = contentType?.value?.toLowerCase() === 'multipart/report';
  const reportType = isReport ? contentType?.params?.['report-type']?.toLowerCase() : undefined;
  // mailparser folds a delivery-status part into the text: the report's parts are read from the MIME.
  const parts = isReport && contentType?.params?.boundary ? reportParts(raw, contentType.params.boundary) : [];
  const part = (type: string) => parts.find((p) => p.type === type)?.body;
  if (reportType === 'delivery-status') {
    const dsn = part('message/delivery-status') ?? part('message/global-delivery-status');
    return dsn ? readDsn(dsn) : { kind: 'other' };
  }
  if (reportType === 'feedback-report') {
    const arf = part('message/feedback-report');
    const fields = arf ? fieldBlocks(arf)[0] : undefined;
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
  const words = (smtpReply ?? diagnostic)
    .replace(/^([245]\d\d)[ -]/, '')
    .replace(/^[245]\.\d{1,3}\.\d{1,3}\s*/, '')
    .trim();
  const response = `${code} ${status ? `${status} ` : ''}${words}`.trim();
  if (code < 500) return { kind: 'delayed', status };
  const classified = classifyRefusal({ responseCode: code, response, message: response });
  if (classified.class === 'retry') return { kind: 'delayed', status };
  return { kind: 'bounce', class: classified.class, error: classified.error, status };
}

/** The top-level parts of a multipart message: each one's Content-Type and its body as text (7bit, as reports are). */
function reportParts(raw: Buffer, boundary: string): Array<{ type: string; body: string }> {
  const text = raw.toString('utf8');
  const delimiter = `--${boundary}`;
  return text
    .split(delimiter)
    .slice(1)
    .filter((chunk) => !chunk.startsWith('--'))
    .map((chunk) => {
      const body = chunk.replace(/^\r?\n/, '');
      const split = body.search(/\r?\n\r?\n/);
      const head = split === -1 ? body : body.slice(0, split);
      const type = /^content-type:\s*([^;\s]+)/im.exec(head)?.[1]?.toLowerCase() ?? 'text/plain';
      return { type, body: split === -1 ? '' : body.slice(split).replace(/^\r?\n\r?\n/, '') };
    });
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
