import { SMTPServer } from 'smtp-server';

export type SmtpCounter = { count: () => number; close: () => Promise<void> };

/**
 * An SMTP relay that accepts and counts messages without parsing them, so that measuring delivery
 * does not spend the machine's CPU on the receiving side (test/kit/smtp.ts parses every message).
 */
export async function startSmtpCounter(port: number): Promise<SmtpCounter> {
  let received = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    disableReverseLookup: true,
    size: 50 * 1024 * 1024,
    onData(stream, _session, callback) {
      stream.on('data', () => {});
      stream.on('end', () => {
        received++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return { count: () => received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
