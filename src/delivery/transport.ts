import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { parseConnectionUrl } from 'nodemailer/lib/shared/index.js';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { Config } from '../config.ts';
import { type Classified, classifyRefusal, type SmtpRefusal } from './bounces.ts';
import type { Stream } from './receiver-headers.ts';

/**
 * `stream` chooses the connections it may use (docs/streams.md); transactional when not given.
 * `messageId`, the record's, names the message in nodemailer's own bookkeeping; without it
 * nodemailer draws a random Message-ID for each raw message (five calls for random bytes), never sent.
 */
export type HandOff = { id: string; from: string; to: string; raw: Buffer; stream?: Stream; messageId?: string };

/**
 * What became of one hand-off (docs/decisions/sending.md SMTP answers, classified by bounces.ts): `delivered`
 * (2xx), `bounced` (hard: the address does not exist; soft: the mailbox cannot take it now),
 * `failed` (another permanent refusal), `retry` (4xx or no connection).
 */
export type Outcome = { kind: 'delivered' } | { kind: 'bounced'; bounceType: 'hard' | 'soft'; error: string } | { kind: 'failed' | 'retry'; error: string };

export interface Transport {
  deliver(message: HandOff): Promise<Outcome>;
  close(): void;
}

/**
 * SMTP_URL unset: each message becomes `<DATA_DIR>/outbox/<record-id>.eml` and counts as delivered.
 * Written to a temporary name and renamed, so a reader never sees half a file, and a second write
 * of the same record after a crash replaces the file instead of adding one.
 */
export class OutboxTransport implements Transport {
  private ready: Promise<unknown> | undefined;
  constructor(private readonly dir: string) {}

  async deliver(message: HandOff): Promise<Outcome> {
    await (this.ready ??= mkdir(this.dir, { recursive: true }));
    const final = join(this.dir, `${message.id}.eml`);
    const temporary = join(this.dir, `.${message.id}.${randomBytes(4).toString('hex')}.tmp`);
    await writeFile(temporary, message.raw);
    await rename(temporary, final);
    return { kind: 'delivered' };
  }

  close(): void {}
}

// Bounded so a hung relay cannot hold a record past its hand-off lease (delivery.service.ts).
const SMTP_TIMEOUTS = { connectionTimeout: 15_000, greetingTimeout: 15_000, socketTimeout: 30_000 };
/** Connections of the shared pool, which marketing mail uses (and transactional mail when it is free). */
export const SMTP_CONNECTIONS = 20;
/**
 * Connections reserved for transactional mail (docs/streams.md): a pool of their own that marketing
 * mail never uses, so a password reset never waits for a connection a campaign holds. Opened only
 * when transactional mail flows (nodemailer opens pooled connections on demand).
 */
export const RESERVED_CONNECTIONS = 4;

/**
 * A pooled SMTP transport to SMTP_URL; one envelope recipient per message. Marketing mail goes
 * through the shared pool; transactional mail too while the shared pool has room (nodemailer's
 * `isIdle`: fewer messages waiting than connections), and through the reserved pool otherwise.
 */
export class SmtpTransport implements Transport {
  private readonly shared: nodemailer.Transporter;
  private readonly reserved: nodemailer.Transporter;

  constructor(url: string) {
    // createTransport({ url, … }) reads the URL alone and drops every other option (pool included),
    // which opened a new connection per message: the URL is parsed here and the pool settings merged.
    const options = parseConnectionUrl(url);
    const pool = (maxConnections: number) =>
      nodemailer.createTransport({
        ...options,
        pool: true,
        maxConnections,
        maxMessages: 1000,
        ...SMTP_TIMEOUTS,
        ...(options.secure ? {} : { getSocket: connectWithoutNagle }),
      } as SMTPPool.Options);
    this.shared = pool(SMTP_CONNECTIONS);
    this.reserved = pool(RESERVED_CONNECTIONS);
  }

  async deliver(message: HandOff): Promise<Outcome> {
    // Transactional mail takes the shared pool while it has room and keeps the reserved one for when
    // a campaign fills it: a flood of transactional mail alone gets all 24 connections' worth.
    const transporter = message.stream === 'marketing' || this.shared.isIdle() ? this.shared : this.reserved;
    try {
      await transporter.sendMail({ envelope: { from: message.from, to: [message.to] }, raw: message.raw, ...(message.messageId ? { messageId: message.messageId } : {}) });
      return { kind: 'delivered' };
    } catch (error) {
      return outcomeOf(classifyRefusal(error as Error & SmtpRefusal));
    }
  }

  close(): void {
    this.shared.close();
    this.reserved.close();
  }
}

/**
 * nodemailer leaves Nagle's algorithm on, so the short end-of-data line waits for the relay's
 * delayed ACK: about 40 ms per message (measured on loopback). A TCP_NODELAY socket sends each
 * command and the end of data at once. Plain and STARTTLS connections only; smtps:// keeps
 * nodemailer's own TLS socket.
 */
function connectWithoutNagle(options: { host?: string; port?: number }, callback: (error: Error | null, socket?: { connection: Socket }) => void) {
  const socket = connect({ host: options.host, port: options.port ?? 25, noDelay: true });
  const onError = (error: Error) => callback(error);
  socket.once('error', onError);
  socket.once('connect', () => {
    socket.removeListener('error', onError);
    callback(null, { connection: socket });
  });
}

function outcomeOf(refusal: Classified): Outcome {
  if (refusal.class === 'hard' || refusal.class === 'soft') return { kind: 'bounced', bounceType: refusal.class, error: refusal.error };
  return { kind: refusal.class, error: refusal.error };
}

export function transportFor(config: Config): Transport {
  return config.smtpUrl ? new SmtpTransport(config.smtpUrl) : new OutboxTransport(join(config.dataDir, 'outbox'));
}
