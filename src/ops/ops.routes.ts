import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { migrationsApplied } from '../db/migrate.ts';
import type { Deps } from '../deps.ts';

/** Liveness, readiness and the public feature flags (GET /config, api.md). */
export const opsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/ready', { schema: { hide: true } }, async (_request, reply) => {
    const database = await deps.db.query('SELECT 1').then(() => true, () => false);
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
    }),
  );
};
