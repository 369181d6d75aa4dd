import { execFileSync } from 'node:child_process';
import { randomUUID, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpsGet } from '../../src/ses/sns.client.ts';

/** An RSA key and a self-signed X.509 certificate, made with openssl (node cannot make certificates). */
export function makeCertificate(commonName = 'sns.amazonaws.com'): { key: string; certificate: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mailroom-sns-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${commonName}`, '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), certificate: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export type SnsMessage = Record<string, string | undefined>;

const NOTIFICATION_FIELDS = ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'];
const SUBSCRIPTION_FIELDS = ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];

/**
 * A stand-in for Amazon SNS in tests: signs messages with its own certificate and answers the
 * server's HTTPS requests (certificate fetches, subscription confirmations) through `transport`,
 * which the test installs with `server.deps.sns.useTransport(fake.transport)`. Nothing reaches
 * the network; every requested URL is kept in `requests`.
 */
export class FakeSns {
  readonly certUrl = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0000000000000000000000.pem';
  readonly topicArn = 'arn:aws:sns:eu-west-1:123456789012:mailroom-ses';
  readonly requests: string[] = [];
  readonly #key: string;
  readonly #certificate: string;

  constructor(pair = makeCertificate()) {
    this.#key = pair.key;
    this.#certificate = pair.certificate;
  }

  transport: HttpsGet = async (url) => {
    this.requests.push(url.href);
    if (url.href === this.certUrl) return { status: 200, body: this.#certificate };
    if (url.searchParams.get('Action') === 'ConfirmSubscription') return { status: 200, body: '<ConfirmSubscriptionResponse/>' };
    return { status: 404, body: 'not found' };
  };

  /** Signs `fields` as SNS would (SignatureVersion 1 = SHA1, 2 = SHA256), with this or another key. */
  sign(fields: SnsMessage, options: { version?: '1' | '2'; key?: string; certUrl?: string } = {}): SnsMessage {
    const version = options.version ?? '1';
    const names = fields.Type === 'Notification' ? NOTIFICATION_FIELDS : SUBSCRIPTION_FIELDS;
    let canonical = '';
    for (const name of names) if (fields[name] !== undefined) canonical += `${name}\n${fields[name]}\n`;
    const signature = sign(version === '2' ? 'sha256' : 'sha1', Buffer.from(canonical, 'utf8'), options.key ?? this.#key).toString('base64');
    return { ...fields, SignatureVersion: version, Signature: signature, SigningCertURL: options.certUrl ?? this.certUrl };
  }

  /** A signed Notification carrying `message` (an SES notification object) as its JSON Message. */
  notification(message: unknown, options: { version?: '1' | '2'; key?: string; certUrl?: string; subject?: string; messageId?: string } = {}): SnsMessage {
    return this.sign(
      {
        Type: 'Notification',
        MessageId: options.messageId ?? randomUUID(),
        TopicArn: this.topicArn,
        Subject: options.subject,
        Message: JSON.stringify(message),
        Timestamp: new Date().toISOString(),
        UnsubscribeURL: `https://sns.eu-west-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${this.topicArn}:1`,
      },
      options,
    );
  }

  subscriptionConfirmation(type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation' = 'SubscriptionConfirmation', subscribeUrl?: string): SnsMessage {
    const token = randomUUID().replaceAll('-', '');
    return this.sign({
      Type: type,
      MessageId: randomUUID(),
      Token: token,
      TopicArn: this.topicArn,
      Message: `You have chosen to subscribe to the topic ${this.topicArn}.`,
      SubscribeURL: subscribeUrl ?? `https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${this.topicArn}&Token=${token}`,
      Timestamp: new Date().toISOString(),
    });
  }
}

/** An SES notification (the feedback format) about the message whose Message-ID header is `messageId`. */
export function sesNotification(type: 'Bounce' | 'Complaint' | 'Delivery', messageId: string, recipient: string, extra: Record<string, unknown> = {}): Record<string, any> {
  const timestamp = new Date().toISOString();
  const details: Record<string, unknown> = {
    Bounce: {
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [{ emailAddress: recipient, diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
        timestamp,
        feedbackId: randomUUID(),
      },
    },
    Complaint: { complaint: { complainedRecipients: [{ emailAddress: recipient }], complaintFeedbackType: 'abuse', timestamp, feedbackId: randomUUID() } },
    Delivery: { delivery: { timestamp, recipients: [recipient], processingTimeMillis: 500, smtpResponse: '250 ok' } },
  }[type]!;
  return {
    notificationType: type,
    mail: {
      timestamp,
      messageId: `0100018c${randomUUID().replaceAll('-', '')}-000000`,
      source: 'sender@example.test',
      destination: [recipient],
      headersTruncated: false,
      headers: [
        { name: 'From', value: 'sender@example.test' },
        { name: 'To', value: recipient },
        { name: 'Message-ID', value: messageId },
      ],
      commonHeaders: { from: ['sender@example.test'], to: [recipient], messageId, subject: 'Hello' },
    },
    ...details,
    ...extra,
  };
}
