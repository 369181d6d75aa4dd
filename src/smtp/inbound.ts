import { simpleParser } from 'mailparser';
import type { SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import { parseVerp } from '../delivery/verp.ts';
import type { Deps } from '../deps.ts';
import { findInboundDomain } from '../domains/domains.queries.ts';
import { receiveInbound } from '../inbound/inbound.service.ts';
import { smtpError } from './limits.ts';
import { readMessage } from './message.ts';
import { applyReturnedMessage } from './return-path.service.ts';

type Target = { emailId: string; domain: string };
type InboundSession = SMTPServerSession & { targets?: Target[]; inbound?: Map<string, string[]> };

/** Envelope recipients per message, as for submission (docs/inbound.md). */
const MAX_RECIPIENTS = 100;

/**
 * The handlers of the inbound listener (SMTP_INBOUND_PORT; docs/smtp.md, docs/inbound.md): no
 * AUTH. A recipient is either a record's signed VERP address (bounces, complaints, auto-replies)
 * or any address of a verified domain whose inbound mail is on. Anything else, or a VERP address
 * whose signature does not hold, is refused at RCPT with 550 5.1.1.
 */
export function inboundHandlers(deps: Deps): Pick<SMTPServerOptions, 'onRcptTo' | 'onData' | 'onMailFrom'> {
  return {
    onMailFrom(_address, session, done) {
      const state = session as InboundSession;
      state.targets = [];
      state.inbound = new Map();
      done();
    },
    onRcptTo(address, session, done) {
      const state = session as InboundSession;
      const target = parseVerp(deps.config.sessionSecret, address.address);
      if (target) {
        (state.targets ??= []).push(target);
        return done();
      }
      const recipient = address.address.trim().toLowerCase();
      const domain = recipient.slice(recipient.lastIndexOf('@') + 1).replace(/\.$/, '');
      const count = [...(state.inbound?.values() ?? [])].reduce((sum, list) => sum + list.length, 0);
      if (count >= MAX_RECIPIENTS) return done(smtpError(452, `4.5.3 Too many recipients: at most ${MAX_RECIPIENTS} per message`));
      findInboundDomain(deps.db, domain)
        .then((found) => {
          if (!recipient.includes('@') || !found) return done(smtpError(550, '5.1.1 No such recipient here'));
          const inbound = (state.inbound ??= new Map());
          const list = inbound.get(found.project_id) ?? [];
          if (!list.includes(recipient)) list.push(recipient);
          inbound.set(found.project_id, list);
          done();
        })
        .catch((error: Error) => {
          deps.log.error({ err: error }, 'an inbound recipient could not be looked up');
          done(smtpError(451, '4.3.0 Local error; try again later'));
        });
    },
    onData(stream: SMTPServerDataStream, session: SMTPServerSession, done: (error?: Error | null, message?: string) => void) {
      const state = session as InboundSession;
      const targets = state.targets ?? [];
      const inbound = state.inbound ?? new Map<string, string[]>();
      const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      readMessage(stream, deps.config.smtp.maxMessageBytes)
        .then(async (read) => {
          if (!read.ok) return done(read.error);
          const parsed = await simpleParser(read.message, { skipImageLinks: true, skipTextLinks: true });
          for (const target of targets) {
            const applied = await applyReturnedMessage(deps, target, read.message, parsed);
            deps.log.info({ emailId: target.emailId, applied }, 'return-path message received');
          }
          for (const [projectId, recipients] of inbound) {
            const id = await receiveInbound(deps, { projectId, recipients, mailFrom, raw: read.message, parsed });
            deps.log.info({ projectId, inboundId: id ?? null, repeated: id === undefined }, 'inbound message received');
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
