import { simpleParser } from 'mailparser';
import type { SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import { parseVerp } from '../delivery/verp.ts';
import type { Deps } from '../deps.ts';
import { smtpError } from './limits.ts';
import { readMessage } from './message.ts';
import { applyReturnedMessage } from './return-path.service.ts';

type Target = { emailId: string; domain: string };
type InboundSession = SMTPServerSession & { targets?: Target[] };

/**
 * The handlers of the inbound listener (SMTP_INBOUND_PORT, docs/smtp.md): no AUTH; a recipient is a
 * record's signed VERP address (bounces, complaints, auto-replies). Any other address, or a VERP
 * address whose signature does not hold, is refused at RCPT with 550 5.1.1.
 */
export function inboundHandlers(deps: Deps): Pick<SMTPServerOptions, 'onRcptTo' | 'onData' | 'onMailFrom'> {
  return {
    onMailFrom(_address, session, done) {
      (session as InboundSession).targets = [];
      done();
    },
    onRcptTo(address, session, done) {
      const target = parseVerp(deps.config.sessionSecret, address.address);
      if (!target) return done(smtpError(550, '5.1.1 No such recipient here'));
      ((session as InboundSession).targets ??= []).push(target);
      done();
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, done: (error?: Error | null, message?: string) => void) {
      const targets = (session as InboundSession).targets ?? [];
      readMessage(stream, deps.config.smtp.maxMessageBytes)
        .then(async (read) => {
          if (!read.ok) return done(read.error);
          const parsed = await simpleParser(read.message, { skipImageLinks: true, skipTextLinks: true });
          for (const target of targets) {
            const applied = await applyReturnedMessage(deps, target, read.message, parsed);
            deps.log.info({ emailId: target.emailId, applied }, 'return-path message received');
          }
          done(null, '2.0.0 Received');
        })
        .catch((error: Error) => {
          deps.log.error({ err: error }, 'an inbound SMTP message failed');
          done(smtpError(451, '4.3.0 Local error; try again later'));
        });
    },
  };
}
