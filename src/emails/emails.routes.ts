import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { startDelivery } from '../delivery/delivery.jobs.ts';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { emailIdParams, emailSchema } from './emails.schemas.ts';
import { getEmail } from './emails.service.ts';

/** contract §6: GET /emails/{id} (secret key, or session with X-Project-Id). */
export const emailsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  // Kicks the delivery chain at start-up, so records left by a stopped process are resumed.
  app.addHook('onReady', async () => {
    try {
      await startDelivery(deps);
    } catch (error) {
      deps.log.error({ err: error }, 'could not start delivery');
    }
  });

  app.get(
    '/emails/:id',
    {
      config: { auth: 'project' },
      schema: { tags: ['emails'], security: [{ apiKey: [] }, { session: [] }], summary: 'One email record', params: emailIdParams, response: { 200: emailSchema } },
    },
    async (request) => getEmail(deps, projectOf(request).id, request.params.id),
  );
};
