import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { Deps } from '../deps.ts';
import { inboundHandlers } from './inbound.ts';
import { ConnectionsPerAddress, ProjectMessageRate, smtpError } from './limits.ts';
import { submissionHandlers } from './submission.ts';
import { SubmissionWriter } from './submission-writer.ts';

/** Connections one client address may hold open on one listener. */
export const MAX_CONNECTIONS_PER_ADDRESS = 20;
/** Connections per listener in all. */
const MAX_CONNECTIONS = 500;
/** An idle client is dropped after this (RFC 5321 §4.5.3.2 suggests 5 minutes per command). */
const SOCKET_TIMEOUT_MS = 5 * 60 * 1000;

export type SmtpListeners = {
  /** The ports listened on (a configured 0 becomes the port taken). */
  ports: { submission?: number; submissions?: number; inbound?: number };
  /** Stops accepting; open sessions get up to `timeoutMs` to end. */
  close(timeoutMs: number): Promise<void>;
};

/**
 * The SMTP listeners a worker runs (docs/smtp.md): submission with STARTTLS (when a certificate is
 * configured) and with implicit TLS, and the inbound listener for the return path, each only
 * when its port is set. Several workers may listen on
 * their own hosts; every message is handled by the one that received it, in one transaction.
 */
export async function startSmtpListeners(deps: Deps): Promise<SmtpListeners> {
  const { smtp } = deps.config;
  const servers: Array<{ name: keyof SmtpListeners['ports']; server: SMTPServer }> = [];
  const rate = new ProjectMessageRate(deps.config.rateLimitPerMinute);
  const writer = new SubmissionWriter(deps);
  const submission = (secure: boolean): SMTPServerOptions => ({
    ...common(deps),
    secure,
    ...(smtp.tls ? { key: smtp.tls.key, cert: smtp.tls.cert } : {}),
    // Without a certificate, AUTH is checked per client in onAuth (loopback, or SMTP_ALLOW_INSECURE_AUTH).
    allowInsecureAuth: !smtp.tls || smtp.allowInsecureAuth,
    disabledCommands: smtp.tls ? [] : ['STARTTLS'],
    authMethods: ['PLAIN', 'LOGIN'],
    ...submissionHandlers(deps, rate, writer),
  });
  if (smtp.submissionPort !== undefined) servers.push({ name: 'submission', server: new SMTPServer(submission(false)) });
  if (smtp.submissionsPort !== undefined && smtp.tls) servers.push({ name: 'submissions', server: new SMTPServer(submission(true)) });
  if (smtp.inboundPort !== undefined) {
    const inbound: SMTPServerOptions = {
      ...common(deps),
      ...(smtp.tls ? { key: smtp.tls.key, cert: smtp.tls.cert } : {}),
      disabledCommands: smtp.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      authOptional: true,
      ...inboundHandlers(deps),
    };
    servers.push({ name: 'inbound', server: new SMTPServer(inbound) });
  }
  const ports: SmtpListeners['ports'] = {};
  const portOf = { submission: smtp.submissionPort, submissions: smtp.submissionsPort, inbound: smtp.inboundPort };
  for (const { name, server } of servers) {
    server.on('error', (error) => deps.log.warn({ err: error, listener: name }, 'SMTP listener error'));
    ports[name] = await new Promise<number>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(portOf[name], deps.config.host, () => resolve((server.server.address() as AddressInfo).port));
    });
  }
  if (servers.length) deps.log.info({ smtp: ports, hostname: smtp.hostname }, 'SMTP listening');
  return {
    ports,
    close: (timeoutMs) =>
      Promise.all(
        servers.map(({ server }) => {
          // smtp-server reads 0 as its default of 30 s.
          (server.options as SMTPServerOptions).closeTimeout = Math.max(1, timeoutMs);
          return new Promise<void>((resolve) => server.close(() => resolve()));
        }),
      ).then(() => {}),
  };
}

/** What every listener shares: the name, size limit, timeouts and connection limits. */
function common(deps: Deps): SMTPServerOptions {
  const { smtp } = deps.config;
  const perAddress = new ConnectionsPerAddress(MAX_CONNECTIONS_PER_ADDRESS);
  return {
    name: smtp.hostname,
    banner: 'Mailroom ESMTP',
    size: smtp.maxMessageBytes,
    logger: false,
    disableReverseLookup: true,
    maxClients: MAX_CONNECTIONS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    onConnect(session, done) {
      if (!perAddress.enter(session)) return done(smtpError(421, `4.7.0 Too many connections from your address (at most ${MAX_CONNECTIONS_PER_ADDRESS}); try again later`));
      done();
    },
    onClose(session) {
      perAddress.leave(session);
    },
  };
}
