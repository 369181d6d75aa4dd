import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';

const listener = (describe: string) => z.object({ port: z.number().int() }).nullable().describe(describe);

/** GET /smtp/settings: what an app needs to send through this server over SMTP (docs/smtp.md). */
export const smtpSettingsSchema = z.object({
  hostname: z.string().describe('SMTP_HOSTNAME: the host apps connect to, and the MX target of domain records'),
  submission: listener('Submission (587 is usual): STARTTLS when `starttls`; null when off'),
  submissions: listener('Submission over implicit TLS (465 is usual); null when off'),
  inbound: listener('The port-25-style listener for bounces, complaints and inbound mail; null when off'),
  starttls: z.boolean().describe('A certificate is configured: submission offers STARTTLS'),
  username: z.string().describe('Any username is accepted; this one reads well in logs'),
  password: z.string().describe('What to give as the password'),
  maxMessageBytes: z.number().int(),
});
export type SmtpSettings = z.infer<typeof smtpSettingsSchema>;

export function smtpSettings(config: Config): SmtpSettings {
  const { smtp } = config;
  const port = (value: number | undefined) => (value === undefined ? null : { port: value });
  return {
    hostname: smtp.hostname,
    submission: port(smtp.submissionPort),
    submissions: smtp.tls ? port(smtp.submissionsPort) : null,
    inbound: port(smtp.inboundPort),
    starttls: smtp.tls !== undefined,
    username: 'mailroom',
    password: "A secret key of the project (sk_…): the project's own, or a named key with the sending scope",
    maxMessageBytes: smtp.maxMessageBytes,
  };
}

/** The SMTP credentials card's source (docs/smtp.md): the server's listeners, as configured (a port of 0 is chosen at start-up). */
export const smtpRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/smtp/settings',
    {
      config: { auth: 'project' },
      schema: {
        tags: ['smtp'],
        security: [{ apiKey: [] }, { session: [] }],
        summary: 'The SMTP settings to give an app: host, ports, username and password',
        response: { 200: smtpSettingsSchema },
      },
    },
    async () => smtpSettings(deps.config),
  );
};
