import type { AddressInfo } from 'node:net';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';

export type SinkMessage = {
  envelope: { from: string; to: string[] };
  /** The message exactly as the client sent it (after SMTP dot-unstuffing). */
  raw: Buffer;
  parsed: ParsedMail;
  /** The username the client authenticated with, if it did. */
  user?: string;
  /** When the sink accepted it (Date.now()). */
  receivedAt: number;
};

/**
 * How the sink answers one RCPT TO. `attempt` counts RCPT TO commands for that address (1 on the
 * first), so "421 on the first try, then accept" is `(to, attempt) => attempt === 1 ? { code: 421 } : undefined`.
 * `undefined` or a 2xx code accepts the recipient. The reply line is `<code> <message>` exactly:
 * give the RFC 3463 enhanced code in the message (`{ code: 550, message: '5.7.1 Blocked' }`), or
 * leave `message` out for a default text that carries the usual one (550 → `5.1.1 No such user here`).
 */
export type SinkReply = (rcptTo: string, attempt: number) => { code: number; message?: string } | undefined;

/** How the sink answers the end of DATA (after the message was received), by envelope recipient. */
export type SinkDataReply = (rcptTo: string, raw: Buffer) => { code: number; message?: string } | undefined;

export type SmtpSinkOptions = {
  reply?: SinkReply;
  /** Refuses a message after its DATA (content filters, size limits); a refused one is not kept. */
  dataReply?: SinkDataReply;
  /** `true`: clients must authenticate (any username and password is accepted). */
  auth?: boolean;
  /** Holds the answer to a RCPT TO until the promise it returns settles (a relay slow to answer). */
  holdRcpt?: (rcptTo: string) => Promise<void> | undefined;
};

export type SmtpSink = {
  port: number;
  /** `smtp://127.0.0.1:<port>`, ready to be SMTP_URL. */
  url: string;
  /** Every accepted message, in arrival order. */
  messages: SinkMessage[];
  /** RCPT TO commands seen for an address so far (accepted or not). */
  attempts(address: string): number;
  /** Resolves with the messages once at least `n` have arrived; rejects after `timeoutMs`. */
  waitForMessages(n: number, timeoutMs?: number): Promise<SinkMessage[]>;
  /** Forgets the messages and the attempt counts. */
  reset(): void;
  close(): Promise<void>;
};

const DEFAULT_MESSAGES: Record<number, string> = {
  421: '4.4.2 Service not available, try again later',
  450: '4.2.1 Mailbox unavailable, try again later',
  451: '4.3.0 Local error in processing',
  452: '4.2.2 Insufficient system storage',
  550: '5.1.1 No such user here',
  551: '5.1.6 User not local',
  552: '5.2.2 Exceeded storage allocation',
  553: '5.1.3 Mailbox name not allowed',
  554: '5.6.0 Transaction failed',
};

const refusal = (answer: { code: number; message?: string }) => {
  const error = new Error(answer.message ?? DEFAULT_MESSAGES[answer.code] ?? 'Recipient refused') as Error & { responseCode: number };
  error.responseCode = answer.code;
  return error;
};

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives, parsed with mailparser: the relay
 * tests point SMTP_URL at. Plain SMTP only (no STARTTLS).
 */
export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: SinkMessage[] = [];
  const attemptCounts = new Map<string, number>();
  let waiters: Array<() => void> = [];
  const notify = () => {
    const current = waiters;
    waiters = [];
    for (const wake of current) wake();
  };

  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    // The replies say exactly what the test asked for, enhanced status code included (RFC 3463).
    hideENHANCEDSTATUSCODES: true,
    allowInsecureAuth: true,
    authOptional: !options.auth,
    size: 50 * 1024 * 1024,
    // close() ends idle pooled client connections quickly instead of waiting 30 s.
    closeTimeout: 200,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? 'anonymous' });
    },
    async onRcptTo(address, _session, callback) {
      const key = address.address.toLowerCase();
      const attempt = (attemptCounts.get(key) ?? 0) + 1;
      attemptCounts.set(key, attempt);
      await options.holdRcpt?.(address.address);
      const answer = options.reply?.(address.address, attempt);
      if (!answer || (answer.code >= 200 && answer.code < 300)) return callback();
      callback(refusal(answer));
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('error', (error) => callback(error));
      stream.on('end', async () => {
        if (stream.sizeExceeded) {
          const error = new Error('Message exceeds fixed maximum message size') as Error & { responseCode: number };
          error.responseCode = 552;
          return callback(error);
        }
        const raw = Buffer.concat(chunks);
        const refused = session.envelope.rcptTo.map((r) => options.dataReply?.(r.address, raw)).find((answer) => answer && answer.code >= 300);
        if (refused) return callback(refusal(refused));
        try {
          // Parsed before answering 250, so a client's send has resolved only once the message is here.
          const parsed = await simpleParser(raw);
          const envelope = {
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
          };
          messages.push({ envelope, raw, parsed, receivedAt: Date.now(), ...(session.user ? { user: String(session.user) } : {}) });
          notify();
          callback();
        } catch (error) {
          callback(error as Error);
        }
      });
    },
  });
  server.on('error', () => {}); // a client dropping mid-session is not the test's failure

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as AddressInfo).port;

  return {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    attempts: (address) => attemptCounts.get(address.toLowerCase()) ?? 0,
    waitForMessages(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== check);
          reject(new Error(`SMTP sink: expected ${n} message(s) within ${timeoutMs} ms, got ${messages.length}`));
        }, timeoutMs);
        const check = () => {
          if (messages.length >= n) {
            clearTimeout(timer);
            resolve(messages.slice());
          } else waiters.push(check);
        };
        check();
      });
    },
    reset() {
      messages.length = 0;
      attemptCounts.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
