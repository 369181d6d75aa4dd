import { SMTPServer } from 'smtp-server';

export type SmtpCounter = {
  count: () => number;
  /** Per label of `options.label`: messages and the arrival time (Date.now()) of the last. */
  byLabel: () => Map<string, { count: number; lastAt: number }>;
  close: () => Promise<void>;
};

export type SmtpCounterOptions = {
  /** Answers each message this long after its data arrived, as a receiving MTA does. */
  delayMs?: number;
  /** Names the group a message belongs to, from its first recipient (e.g. campaign or transactional). */
  label?: (rcptTo: string) => string;
};

/**
 * An SMTP relay that accepts and counts messages without parsing them, so that measuring delivery
 * does not spend the machine's CPU on the receiving side (test/kit/smtp.ts parses every message).
 */
export async function startSmtpCounter(port: number, options: SmtpCounterOptions = {}): Promise<SmtpCounter> {
  let received = 0;
  const labels = new Map<string, { count: number; lastAt: number }>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    disableReverseLookup: true,
    size: 50 * 1024 * 1024,
    onData(stream, session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received++;
        if (options.label) {
          const label = options.label(session.envelope.rcptTo[0]?.address ?? '');
          const seen = labels.get(label) ?? { count: 0, lastAt: 0 };
          labels.set(label, { count: seen.count + 1, lastAt: Date.now() });
        }
        if (options.delayMs) setTimeout(callback, options.delayMs);
        else callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { count: () => received, byLabel: () => labels, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
