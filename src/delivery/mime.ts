import { createHash, createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { promisify } from 'node:util';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
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

/**
 * The RFC 5322 message of contract §6: From with display name, Reply-To, To, Subject, Date,
 * Message-ID, MIME-Version, multipart/alternative (text generated from the HTML), attachments in
 * multipart/mixed, inline parts in multipart/related with Content-ID, and the custom headers.
 * Composed by nodemailer; no file or URL access (every part is in memory).
 */
export function composeMessage(input: MessageInput): Promise<Buffer> {
  const composer = new MailComposer({
    from: { address: input.from.address, name: input.from.name ?? '' },
    to: { address: input.to.address, name: input.to.name ?? '' },
    ...(input.replyTo ? { replyTo: input.replyTo } : {}),
    subject: input.subject,
    messageId: input.messageId,
    date: input.date ?? new Date(),
    html: input.html,
    text: input.text,
    headers: input.headers,
    attachments: input.attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      contentType: a.contentType,
      contentDisposition: a.disposition,
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return new Promise((resolve, reject) => composer.compile().build((error, message) => (error ? reject(error) : resolve(message))));
}

// Signed header fields (RFC 6376 §5.4.1), those present in the message. Content-Type binds the MIME structure.
const SIGNED_FIELDS = ['from', 'reply-to', 'to', 'subject', 'date', 'message-id', 'mime-version', 'content-type', 'list-unsubscribe', 'list-unsubscribe-post'];

/** RFC 6376 §3.4.4 relaxed body: WSP runs → one SP, no WSP at line ends, no trailing empty lines. */
function relaxedBody(body: Buffer): Buffer {
  const text = body.toString('binary').replace(/[ \t]+\r\n/g, '\r\n').replace(/[ \t]+/g, ' ').replace(/(\r\n)+$/, '');
  return Buffer.from(text.length ? `${text}\r\n` : '', 'binary');
}

/** RFC 6376 §3.4.2 relaxed header: lower-case name, unfolded value with WSP runs collapsed and trimmed. */
const relaxedHeader = (name: string, value: string) => `${name.toLowerCase()}:${value.replace(/\r\n/g, '').replace(/[ \t]+/g, ' ').trim()}`;

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
 * Prepends a DKIM-Signature (contract §6: rsa-sha256, relaxed/relaxed, d = the verified domain,
 * s = its selector). The RSA operation runs on libuv's thread pool (async crypto.sign), so a batch
 * of messages signs on several cores without blocking the event loop (design.md).
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
  const header = `DKIM-Signature: ${folded}${signature.replace(/(.{72})(?=.)/g, '$1\r\n\t')}\r\n`;
  return Buffer.concat([Buffer.from(header, 'binary'), message]);
}

/** One tag per line after the first (RFC 5322 folding); a fold is whitespace that canonicalizes to one SP. */
const foldTags = (tags: string) => tags.replace(/; /g, ';\r\n\t');

/** A composed, signed message ready for any transport. */
export async function buildMessage(input: MessageInput, key: DkimKey): Promise<Buffer> {
  return dkimSign(await composeMessage(input), key);
}
