import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export type RelayedMessage = { to: string[]; messageId: string; receivedAt: number };

export type CountingRelay = {
  url: string;
  /** RCPT TO commands per address (lower-cased), accepted or not. */
  rcpts: Map<string, number>;
  /** Every message whose DATA arrived in full, in arrival order: from then on the relay has it. */
  messages: RelayedMessage[];
  /** Messages per recipient address (lower-cased). */
  countByRecipient(): Map<string, number>;
  /** Transactions that have a recipient and no answer to their DATA yet: what a client's death leaves in doubt. */
  inFlight(): number;
  close(): Promise<void>;
};

/**
 * A real SMTP relay for crash tests: counts every RCPT TO and every message (with its Message-ID),
 * and answers each message after `delayMs`, so a kill finds transactions in flight. Plain SMTP.
 */
export async function startCountingRelay(options: { delayMs?: number } = {}): Promise<CountingRelay> {
  const rcpts = new Map<string, number>();
  const messages: RelayedMessage[] = [];
  const open = new Set<string>();
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    closeTimeout: 200,
    size: 50 * 1024 * 1024,
    onRcptTo(address, session, callback) {
      const to = address.address.toLowerCase();
      rcpts.set(to, (rcpts.get(to) ?? 0) + 1);
      open.add(session.id);
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const head = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n', 1)[0]!;
        const messageId = /^Message-ID:\s*(<[^>]+>)/im.exec(head)?.[1] ?? '';
        messages.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), messageId, receivedAt: Date.now() });
        setTimeout(() => {
          open.delete(session.id);
          callback();
        }, options.delayMs ?? 0);
      });
    },
    onClose(session) {
      open.delete(session.id);
    },
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    rcpts,
    messages,
    countByRecipient() {
      const counts = new Map<string, number>();
      for (const message of messages) for (const to of message.to) counts.set(to, (counts.get(to) ?? 0) + 1);
      return counts;
    },
    inFlight: () => open.size,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
