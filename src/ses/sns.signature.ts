import { type KeyObject, verify } from 'node:crypto';
import type { SnsEnvelope } from './ses.schemas.ts';

// The fields signed, in this order, per message type
// (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html).
const NOTIFICATION_FIELDS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] as const;
const SUBSCRIPTION_FIELDS = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'] as const;

/** The canonical string SNS signs: each field as "Name\nValue\n"; an absent Subject is left out. */
export function canonicalString(envelope: SnsEnvelope): string {
  const fields = envelope.Type === 'Notification' ? NOTIFICATION_FIELDS : SUBSCRIPTION_FIELDS;
  let out = '';
  for (const name of fields) {
    const value = envelope[name];
    if (value === undefined || value === null) continue;
    out += `${name}\n${value}\n`;
  }
  return out;
}

/** SignatureVersion 1 is SHA1withRSA, 2 is SHA256withRSA. */
export function signatureValid(envelope: SnsEnvelope, key: KeyObject): boolean {
  const algorithm = envelope.SignatureVersion === '2' ? 'sha256' : 'sha1';
  const signature = Buffer.from(envelope.Signature, 'base64');
  if (signature.length === 0) return false;
  try {
    return verify(algorithm, Buffer.from(canonicalString(envelope), 'utf8'), key, signature);
  } catch {
    return false;
  }
}
