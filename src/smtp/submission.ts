import type { SMTPServerAuthentication, SMTPServerAuthenticationResponse, SMTPServerDataStream, SMTPServerOptions, SMTPServerSession } from 'smtp-server';
import { keyMaySendFrom } from '../auth/api-keys.ts';
import { emailField } from '../contacts/contacts.schemas.ts';
import type { Deps } from '../deps.ts';
import { signingDomainsFor } from '../domains/domains.service.ts';
import { AppError } from '../errors.ts';
import { MAX_RECIPIENTS } from '../send/send.schemas.ts';
import { isLoopback, type ProjectMessageRate, smtpError } from './limits.ts';
import { readMessage } from './message.ts';
import type { SubmissionWriter } from './submission-writer.ts';

/**
 * What a session holds once it authenticated: the project of the secret key, the sender domains a
 * named key is limited to, and the MAIL FROM domains found verified, each until when it is trusted.
 */
type SubmissionUser = { projectId: string; senderDomains: string[]; verifiedSenders: Map<string, number> };
const userOf = (session: SMTPServerSession) => session.user as unknown as SubmissionUser;
const projectOf = (session: SMTPServerSession) => userOf(session).projectId;

/** Record ids named in a 250 reply at most (a reply line stays under 512 octets, RFC 5321 §4.5.3.1.5). */
const NAMED_IDS = 10;
/**
 * How long a connection trusts a MAIL FROM domain it found verified: an app sends message after
 * message from one address, and each message's From is checked again in its own transaction.
 */
const VERIFIED_SENDER_TTL_MS = 60_000;

/**
 * The handlers of the submission listeners (docs/smtp.md): AUTH with a project's secret key, MAIL
 * FROM on a verified domain, up to MAX_RECIPIENTS RCPT, and DATA written as a /v1/send whose 250
 * comes after the commit and names the email records.
 */
export function submissionHandlers(deps: Deps, rate: ProjectMessageRate, writer: SubmissionWriter): Pick<SMTPServerOptions, 'onAuth' | 'onMailFrom' | 'onRcptTo' | 'onData'> {
  const { smtp } = deps.config;
  return {
    onAuth(auth: SMTPServerAuthentication, session: SMTPServerSession, done: (error: Error | null | undefined, response?: SMTPServerAuthenticationResponse) => void) {
      // Without a certificate the library offers AUTH to all; only loopback clients may use it then.
      if (!session.secure && !smtp.tls && !smtp.allowInsecureAuth && !isLoopback(session.remoteAddress)) {
        return done(smtpError(538, '5.7.11 Encryption required: this server has no TLS certificate, so only local clients may authenticate'));
      }
      // Any secret key may submit: the project's, or a named key of either scope (submission is sending).
      deps.keys.resolve(auth.password ?? '').then(
        (key) => {
          if (key?.keyType !== 'secret') return done(smtpError(535, "5.7.8 Authentication credentials invalid: the password is the project's secret key (sk_...)"));
          if (key.disabled) return done(smtpError(535, `5.7.8 This project is disabled${key.disabledReason ? `: ${key.disabledReason}` : ''}`));
          const user: SubmissionUser = { projectId: key.projectId, senderDomains: key.senderDomains ?? [], verifiedSenders: new Map() };
          done(null, { user: user as never });
        },
        (error: Error) => done(temporaryFailure(deps, error)),
      );
    },

    onMailFrom(address, session, done) {
      const projectId = projectOf(session);
      const wait = rate.take(projectId);
      if (wait > 0) return done(smtpError(421, `4.7.0 Too many messages from this project; try again in ${wait} seconds`));
      if (!address.address) return done(smtpError(550, '5.7.1 The sender must be an address on a verified domain of the project'));
      if (!keyMaySendFrom(userOf(session).senderDomains, address.address))
        return done(smtpError(550, `5.7.1 This key may send only from ${userOf(session).senderDomains.join(', ')}: use another key or sender`));
      const domain = domainOf(address.address);
      const verified = userOf(session).verifiedSenders;
      if ((verified.get(domain) ?? 0) > Date.now()) return done();
      signingDomainsFor(deps.db, [{ projectId, fromEmail: address.address }]).then(
        ([signing]) => {
          if (!signing)
            return done(
              smtpError(550, `5.7.1 The sender domain ${domain} is not verified in this project: add it under Domains and publish its DNS records, or send from a verified domain`),
            );
          verified.set(domain, Date.now() + VERIFIED_SENDER_TTL_MS);
          done();
        },
        (error: Error) => done(temporaryFailure(deps, error)),
      );
    },

    onRcptTo(address, session, done) {
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS)
        return done(smtpError(452, `4.5.3 Too many recipients: at most ${MAX_RECIPIENTS} per message; send the rest in another message`));
      if (!emailField.safeParse(address.address).success) return done(smtpError(553, '5.1.3 The recipient address is not valid'));
      done();
    },

    onData(stream: SMTPServerDataStream, session: SMTPServerSession, done: (error?: Error | null, message?: string) => void) {
      readMessage(stream, smtp.maxMessageBytes).then(
        async (raw) => {
          if (!raw.ok) return done(raw.error);
          try {
            const submitted = await writer.submit({
              projectId: projectOf(session),
              mailFrom: (session.envelope.mailFrom as { address: string }).address,
              recipients: [...new Set(session.envelope.rcptTo.map((rcpt) => rcpt.address.toLowerCase()))],
              raw: raw.message,
            });
            const ids = submitted.emailIds;
            const named = ids.slice(0, NAMED_IDS).join(' ') + (ids.length > NAMED_IDS ? ` and ${ids.length - NAMED_IDS} more` : '');
            done(null, `2.0.0 ${submitted.repeated ? 'Already accepted (same Message-ID), not sent again' : 'Queued'}: ${named}`);
          } catch (error) {
            done(refusal(deps, error));
          }
        },
        (error: Error) => done(temporaryFailure(deps, error)),
      );
    },
  };
}

const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** The SMTP answer to a refused submission (the /v1/send error it would have been). */
function refusal(deps: Deps, error: unknown): Error {
  if (!(error instanceof AppError)) return temporaryFailure(deps, error);
  switch (error.code) {
    case 'SENDER_DOMAIN_NOT_VERIFIED':
      return smtpError(550, `5.7.1 ${error.message} The From header must be on a verified domain too`);
    case 'BILLING_LIMIT_EXCEEDED':
      return smtpError(552, `5.7.0 ${error.message}`);
    case 'PROJECT_DISABLED':
      return smtpError(554, `5.7.1 ${error.message}`);
    case 'VALIDATION_ERROR':
      return smtpError(554, `5.6.0 ${error.errors?.[0]?.message ?? error.message}`);
    default:
      return smtpError(451, `4.3.0 ${error.message}`);
  }
}

function temporaryFailure(deps: Deps, error: unknown): Error {
  deps.log.error({ err: error }, 'an SMTP submission failed');
  return smtpError(451, '4.3.0 Local error; the message was not accepted, try again later');
}
