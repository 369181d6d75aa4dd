import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { migrationsApplied } from '../db/migrate.ts';
import type { Deps } from '../deps.ts';

/** Liveness, readiness, the public feature flags and the system sender's DNS records (GET /config, the API reference). */
export const opsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/ready', { schema: { hide: true } }, async (_request, reply) => {
    const database = await deps.db.query('SELECT 1').then(
      () => true,
      () => false,
    );
    const migrated = database && (await migrationsApplied(deps.db));
    const ready = database && migrated;
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', database, migrations: migrated });
  });

  app.get(
    '/config',
    {
      schema: {
        tags: ['config'],
        summary: 'Feature flags of this deployment (no authentication)',
        response: {
          200: z.object({
            signupEnabled: z.boolean(),
            delivery: z.enum(['smtp', 'outbox']),
            database: z.enum(['embedded', 'postgres']),
            publicUrl: z.string(),
            oauthProviders: z.array(z.string()),
            billing: z.boolean(),
            sendRatePerSecond: z.number(),
            systemMail: z
              .object({
                from: z.string().describe('SYSTEM_FROM, or no-reply at PUBLIC_URL’s host when it is unset'),
                signed: z.boolean().describe('false when SYSTEM_FROM is unset: the server’s own mail then goes out without a DKIM signature'),
                records: z
                  .array(z.object({ type: z.literal('TXT'), name: z.string(), value: z.string(), required: z.boolean(), note: z.string().optional() }))
                  .describe('The DNS records of SYSTEM_FROM’s domain (its DKIM key, made at start-up; SPF; DMARC)'),
              })
              .describe('The sender of the server’s own mail (address verification, password reset) and the records to publish for it'),
          }),
        },
      },
    },
    async () => ({
      signupEnabled: deps.config.signupEnabled,
      delivery: deps.config.smtpUrl ? ('smtp' as const) : ('outbox' as const),
      database: deps.db.kind === 'pglite' ? ('embedded' as const) : ('postgres' as const),
      publicUrl: deps.config.publicUrl,
      oauthProviders: [],
      billing: false,
      sendRatePerSecond: deps.config.sendRatePerSecond,
      systemMail: { from: deps.systemSender.address, signed: deps.systemSender.key !== undefined, records: deps.systemSender.records },
    }),
  );
};
