import { createHash, createPrivateKey, type KeyObject, randomUUID, sign } from 'node:crypto';
import { promisify } from 'node:util';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type Mail from 'nodemailer/lib/mailer/index.js';
import mimeFuncs from 'nodemailer/lib/mime-funcs/index.js';
import { LruCache } from '../rendering/lru.ts';

const signAsync = promisify(sign);

/**
 * Parsed signing keys by PEM. Given a PEM, crypto.sign parses it again on the main thread for every
 * message, which cost as much as the RSA operation itself (measured): a KeyObject is parsed once.
 */
const parsedKeys = new LruCache<string, KeyObject>(1000, 1000);
function privateKeyObject(pem: string): KeyObject {
  let key = parsedKeys.get(pem);
  if (!key) parsedKeys.set(pem, (key = createPrivateKey(pem)));
  return key;
}

export type MessageAttachment = { filename: string; contentType: string; contentId: string | null; disposition: 'attachment' | 'inline'; content: Buffer };
export type DkimKey = { domainName: string; selector: string; privateKey: string };

export type MessageInput = {
  messageId: string;
  from: { address: string; name: string | null };
  to: { address: string; name: string | null };
  replyTo: string | null;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  attachments: MessageAttachment[];
  date?: Date;
};

/** RFC 5322 §2.1.1: a line is at most 998 octets, CRLF excluded. */
export const MAX_LINE_OCTETS = 998;

/** Every line break (CRLF, bare CR, bare LF) as CRLF: the only line end a canonical message has (RFC 5322 §2.3). */
const crlf = (text: string) => text.replace(/\r\n|\r|\n/g, '\r\n');

/**
 * An unstructured header value (Subject, a custom header) whose line could not be folded under 998
 * octets (a run without whitespace) is sent as RFC 2047 encoded-words, which fold between words.
 * Other values are left to nodemailer, which encodes non-ASCII and folds at whitespace.
 */
function unstructured(name: string, value: string): string | { prepared: true; foldLines: true; value: string } {
  const longestRun = Math.max(0, ...value.split(/[ \t]+/).map((run) => Buffer.byteLength(run)));
  if (longestRun + name.length + 2 <= MAX_LINE_OCTETS - 2) return value;
  return { prepared: true, foldLines: true, value: mimeFuncs.encodeWord(value, 'Q', 52) };
}

// Headers whose syntax is structured (RFC 2369, RFC 8058): never turned into encoded-words.
const STRUCTURED = new Set(['list-unsubscribe', 'list-unsubscribe-post', 'list-id', 'in-reply-to', 'references']);

/**
 * An attachment's part is base64 (RFC 2045 §6.8): its bytes arrive exactly as given, in CRLF lines
 * of 76 characters, whatever they hold (bare LF or CR, long lines, NUL). message/* parts may not be
 * base64-encoded (RFC 2046 §5.2.1): their line ends are made CRLF and they are sent as 7bit; only
 * one with 8-bit bytes or a line still too long falls back to base64 (we do not rely on 8BITMIME).
 */
function attachmentPart(a: MessageAttachment): Mail.Attachment {
  const common = { filename: a.filename, contentType: a.contentType, contentDisposition: a.disposition, ...(a.contentId ? { cid: a.contentId } : {}) };
  if (/^message\//i.test(a.contentType)) {
    const content = Buffer.from(crlf(a.content.toString('binary')), 'binary');
    if (isAscii(content) && !hasLongLine(content)) return { ...common, content, contentTransferEncoding: '7bit' };
  }
  return { ...common, content: a.content, contentTransferEncoding: 'base64' };
}

const isAscii = (content: Buffer) => !content.some((byte) => byte > 0x7f);

const hasLongLine = (content: Buffer) => hasLineOver(content, 0, MAX_LINE_OCTETS);

/** Whether a line of `content` from octet `from` on is longer than `octets` (CR LF or LF excluded). */
function hasLineOver(content: Buffer, from: number, octets: number): boolean {
  let start = Math.max(0, from);
  for (let lf = content.indexOf(0x0a, start); lf !== -1; lf = content.indexOf(0x0a, start)) {
    if (lf - 1 - start > octets) return true;
    start = lf + 1;
  }
  return content.length - start > octets;
}

/**
 * The RFC 5322 message of docs/decisions/sending.md: From with display name, Reply-To, To, Subject, Date,
 * Message-ID, MIME-Version, multipart/alternative (text generated from the HTML), attachments in
 * multipart/mixed, inline parts in multipart/related with Content-ID, and the custom headers.
 * Composed by nodemailer; no file or URL access (every part is in memory).
 *
 * The message is canonical (docs/decisions/sending.md), so that what is signed is what arrives: text and HTML
 * lines end in CRLF before nodemailer encodes them (it keeps line breaks as given, and a bare LF
 * becomes CRLF on the wire, changing the signed body), long lines are encoded (quoted-printable
 * or base64, nodemailer's choice), attachments are base64, and the result is checked.
 */
export async function composeMessage(input: MessageInput): Promise<Buffer> {
  const headers: Record<string, ReturnType<typeof unstructured>> = {};
  for (const [name, value] of Object.entries(input.headers)) headers[name] = STRUCTURED.has(name.toLowerCase()) ? value : unstructured(name, value);
  // baseBoundary is a MailComposer option its types leave out.
  const options: Mail.Options & { baseBoundary: string } = {
    from: { address: input.from.address, name: input.from.name ?? '' },
    to: { address: input.to.address, name: input.to.name ?? '' },
    ...(input.replyTo ? { replyTo: input.replyTo } : {}),
    subject: unstructured('Subject', input.subject) as string,
    messageId: input.messageId,
    date: input.date ?? new Date(),
    html: crlf(input.html),
    text: crlf(input.text),
    headers: headers as Record<string, string>,
    attachments: input.attachments.map(attachmentPart),
    // The boundaries' random part, 16 hex digits as nodemailer's own (60 random bits), from the
    // UUIDs Node buffers (one draw per 128): left to nodemailer, each MIME part drew its own bytes.
    baseBoundary: randomUUID().replace(/-/g, '').slice(0, 16),
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  const composer = new MailComposer(options);
  const built = await new Promise<Buffer>((resolve, reject) => composer.compile().build((error, raw) => (error ? reject(error) : resolve(raw))));
  const message = wrapBase64Bodies(built);
  assertCanonical(message);
  return message;
}

/** RFC 2045 §6.8: encoded lines of base64 are at most 76 characters. */
export const MAX_BASE64_LINE = 76;

/**
 * Breaks every base64 body line over 76 characters (RFC 2045 §6.8). nodemailer's encoder appends
 * the last bytes of a part to its last line without wrapping it again, so a part whose last line
 * was nearly full ended in a line of up to 80 characters (a short Chinese text/plain part, say).
 * Only bodies whose Content-Transfer-Encoding is base64 are touched, where line breaks carry no
 * data; an attached message/* part is a body of its own part and is left as it is.
 */
export function wrapBase64Bodies(message: Buffer): Buffer {
  // Most messages have no line over 76 characters after the header: nothing to wrap.
  if (!hasLineOver(message, message.indexOf('\r\n\r\n'), MAX_BASE64_LINE)) return message;
  const lines = message.toString('binary').split('\r\n');
  const boundaries = new Set<string>();
  let inHeader = true;
  let header: string[] = [];
  let base64 = false;
  let changed = false;
  const out: string[] = [];
  for (const line of lines) {
    if (inHeader) {
      out.push(line);
      if (line === '') {
        const fields = header.join('');
        const boundary = /boundary="?([^";\s]+)"?/i.exec(fields)?.[1];
        if (boundary && /content-type:\s*multipart\//i.test(fields)) boundaries.add(boundary);
        base64 = /(^|\n)content-transfer-encoding:\s*base64/i.test(header.join('\n'));
        inHeader = false;
        header = [];
      } else if (/^[ \t]/.test(line) && header.length) header[header.length - 1] += line;
      else header.push(line);
      continue;
    }
    if (line.startsWith('--') && boundaries.has(line.slice(2).replace(/--$/, ''))) {
      out.push(line);
      inHeader = !line.endsWith('--') || !boundaries.has(line.slice(2, -2));
      base64 = false;
      continue;
    }
    if (base64 && line.length > MAX_BASE64_LINE) {
      changed = true;
      for (let at = 0; at < line.length; at += MAX_BASE64_LINE) out.push(line.slice(at, at + MAX_BASE64_LINE));
    } else out.push(line);
  }
  return changed ? Buffer.from(out.join('\r\n'), 'binary') : message;
}

/**
 * Throws unless every line of the message ends in CRLF (no bare CR or LF) and none is longer than
 * 998 octets. A message that fails is never signed or sent: its record fails with the reason.
 */
export function assertCanonical(message: Buffer): void {
  for (let cr = message.indexOf(0x0d); cr !== -1; cr = message.indexOf(0x0d, cr + 2)) {
    if (message[cr + 1] !== 0x0a) throw new Error(`the message is not canonical: a bare CR at octet ${cr}`);
  }
  let start = 0;
  for (let lf = message.indexOf(0x0a); lf !== -1; lf = message.indexOf(0x0a, start)) {
    if (lf === 0 || message[lf - 1] !== 0x0d) throw new Error(`the message is not canonical: a bare LF at octet ${lf}`);
    if (lf - 1 - start > MAX_LINE_OCTETS) throw new Error(`the message is not canonical: a line of ${lf - 1 - start} octets (at most ${MAX_LINE_OCTETS})`);
    start = lf + 1;
  }
  if (message.length - start > MAX_LINE_OCTETS) throw new Error('the message is not canonical: its last line is over 998 octets');
}

// Signed header fields (RFC 6376 §5.4.1), those present in the message. Content-Type binds the MIME structure.
const SIGNED_FIELDS = ['from', 'reply-to', 'to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'list-unsubscribe', 'list-unsubscribe-post'];

/** RFC 6376 §3.4.4 relaxed body: WSP runs → one SP, no WSP at line ends, no trailing empty lines. */
function relaxedBody(body: Buffer): Buffer {
  const text = body
    .toString('binary')
    .replace(/[ \t]+\r\n/g, '\r\n')
    .replace(/[ \t]+/g, ' ')
    .replace(/(\r\n)+$/, '');
  return Buffer.from(text.length ? `${text}\r\n` : '', 'binary');
}

/** RFC 6376 §3.4.2 relaxed header: lower-case name, unfolded value with WSP runs collapsed and trimmed. */
const relaxedHeader = (name: string, value: string) =>
  `${name.toLowerCase()}:${value
    .replace(/\r\n/g, '')
    .replace(/[ \t]+/g, ' ')
    .trim()}`;

/** Header fields in order, each with its (folded) value, from a message's header block. */
function parseHeaders(block: string): Array<{ name: string; value: string }> {
  const fields: Array<{ name: string; value: string }> = [];
  for (const line of block.split('\r\n')) {
    if (/^[ \t]/.test(line) && fields.length) fields.at(-1)!.value += `\r\n${line}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) fields.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1) });
    }
  }
  return fields;
}

/**
 * Prepends a DKIM-Signature (docs/decisions/sending.md: rsa-sha256, relaxed/relaxed, d = the verified domain,
 * s = its selector). The RSA operation runs on libuv's thread pool (async crypto.sign), so a batch
 * of messages signs on several cores without blocking the event loop (docs/architecture.md).
 */
export async function dkimSign(message: Buffer, key: DkimKey): Promise<Buffer> {
  const split = message.indexOf('\r\n\r\n');
  const headerBlock = message.subarray(0, split).toString('binary');
  const body = message.subarray(split + 4);
  const bodyHash = createHash('sha256').update(relaxedBody(body)).digest('base64');
  const fields = parseHeaders(headerBlock);
  // Each signed name once, the last instance (RFC 6376 §5.4.2 signs bottom-up).
  const signed = SIGNED_FIELDS.map((name) => fields.findLast((field) => field.name.toLowerCase() === name)).filter((field) => field !== undefined);
  const tags = [
    'v=1',
    'a=rsa-sha256',
    'c=relaxed/relaxed',
    `d=${key.domainName}`,
    `s=${key.selector}`,
    `t=${Math.floor(Date.now() / 1000)}`,
    `h=${signed.map((field) => field.name).join(':')}`,
    `bh=${bodyHash}`,
    'b=',
  ].join('; ');
  // The header is signed as it will appear, folded (relaxed canonicalization keeps a space per fold).
  const folded = foldTags(tags);
  const canonical = signed.map((field) => `${relaxedHeader(field.name, field.value)}\r\n`).join('') + relaxedHeader('DKIM-Signature', ` ${folded}`);
  const signature = (await signAsync('sha256', Buffer.from(canonical, 'binary'), privateKeyObject(key.privateKey))).toString('base64');
  // The b= value is removed before verification (RFC 6376 §3.5), so folding it changes nothing.
  const header = `DKIM-Signature: ${folded}${foldSignature(signature)}\r\n`;
  return Buffer.concat([Buffer.from(header, 'binary'), message]);
}

/** The b= value in lines of 72 characters (a lookahead regex over it cost as much as the rest of the header). */
function foldSignature(signature: string): string {
  const lines: string[] = [];
  for (let at = 0; at < signature.length; at += 72) lines.push(signature.slice(at, at + 72));
  return lines.join('\r\n\t');
}

/** One tag per line after the first (RFC 5322 folding); a fold is whitespace that canonicalizes to one SP. */
const foldTags = (tags: string) => tags.replace(/; /g, ';\r\n\t');

/** A composed, signed message ready for any transport. */
export async function buildMessage(input: MessageInput, key: DkimKey): Promise<Buffer> {
  return dkimSign(await composeMessage(input), key);
}
