import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed link tokens (docs/decisions/sending.md: a forged or altered token gets 404). A token is base64url of
 * `payload ‖ tag`, where the payload packs the fields as bytes (uuids as 16 bytes, so links stay
 * short) and the tag is HMAC-SHA256 over the payload truncated to 128 bits, keyed with a key
 * derived from SESSION_SECRET so link tokens and session cookies never share a key.
 */
export const LINK_PURPOSES = ['open', 'click', 'unsubscribe', 'subscribe', 'manage'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

export type LinkToken = {
  purpose: LinkPurpose;
  projectId: string;
  contactId?: string;
  emailId?: string;
  /** Position of the target in the message's URL list (click tokens). */
  index?: number;
};

const VERSION = 1;
const TAG_BYTES = 16;
const UUID_BYTES = 16;
const HAS_CONTACT = 1;
const HAS_EMAIL = 2;
const HAS_INDEX = 4;
/** Click indexes are stored in two bytes; instrument.ts never tracks more URLs than this. */
export const MAX_LINK_INDEX = 0xffff;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

const keys = new Map<string, Buffer>();

/** HMAC('mailroom.links.v1', secret): a key of its own for links, derived once per secret. */
function linkKey(secret: string): Buffer {
  let key = keys.get(secret);
  if (!key) {
    key = createHmac('sha256', secret).update('mailroom.links.v1').digest();
    keys.set(secret, key);
  }
  return key;
}

function tag(secret: string, payload: Buffer): Buffer {
  return createHmac('sha256', linkKey(secret)).update(payload).digest().subarray(0, TAG_BYTES);
}

function uuidBytes(uuid: string): Buffer {
  if (!UUID.test(uuid)) throw new Error(`Not a uuid: ${uuid}`);
  return Buffer.from(uuid.replaceAll('-', ''), 'hex');
}

function uuidString(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function signLinkToken(secret: string, token: LinkToken): string {
  const purpose = LINK_PURPOSES.indexOf(token.purpose);
  if (purpose < 0) throw new Error(`Unknown link purpose: ${token.purpose}`);
  const flags = (token.contactId ? HAS_CONTACT : 0) | (token.emailId ? HAS_EMAIL : 0) | (token.index !== undefined ? HAS_INDEX : 0);
  const parts = [Buffer.from([VERSION, purpose, flags]), uuidBytes(token.projectId)];
  if (token.contactId) parts.push(uuidBytes(token.contactId));
  if (token.emailId) parts.push(uuidBytes(token.emailId));
  if (token.index !== undefined) {
    if (!Number.isInteger(token.index) || token.index < 0 || token.index > MAX_LINK_INDEX) throw new Error(`Bad link index: ${token.index}`);
    const index = Buffer.alloc(2);
    index.writeUInt16BE(token.index);
    parts.push(index);
  }
  const payload = Buffer.concat(parts);
  return Buffer.concat([payload, tag(secret, payload)]).toString('base64url');
}

/**
 * The token's fields when it is well-formed, signed with this secret and made for `purpose`;
 * otherwise null. The tag is compared in constant time before any field is trusted.
 */
export function verifyLinkToken(secret: string, token: string, purpose: LinkPurpose): LinkToken | null {
  if (token.length > 200 || !BASE64URL.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  // Node's decoder ignores stray trailing bits: accept only the canonical spelling of the bytes.
  if (bytes.toString('base64url') !== token || bytes.length < 3 + UUID_BYTES + TAG_BYTES) return null;
  const payload = bytes.subarray(0, bytes.length - TAG_BYTES);
  if (!timingSafeEqual(bytes.subarray(bytes.length - TAG_BYTES), tag(secret, payload))) return null;

  const [version, purposeIndex, flags] = payload;
  if (version !== VERSION || LINK_PURPOSES[purposeIndex!] !== purpose || (flags! & ~(HAS_CONTACT | HAS_EMAIL | HAS_INDEX)) !== 0) return null;
  const expected = 3 + UUID_BYTES + (flags! & HAS_CONTACT ? UUID_BYTES : 0) + (flags! & HAS_EMAIL ? UUID_BYTES : 0) + (flags! & HAS_INDEX ? 2 : 0);
  if (payload.length !== expected) return null;

  let offset = 3;
  const take = (length: number) => payload.subarray(offset, (offset += length));
  const result: LinkToken = { purpose, projectId: uuidString(take(UUID_BYTES)) };
  if (flags! & HAS_CONTACT) result.contactId = uuidString(take(UUID_BYTES));
  if (flags! & HAS_EMAIL) result.emailId = uuidString(take(UUID_BYTES));
  if (flags! & HAS_INDEX) result.index = take(2).readUInt16BE();
  return result;
}
