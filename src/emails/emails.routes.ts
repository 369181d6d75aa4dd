import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { emailIdParams, emailSchema } from './emails.schemas.ts';
import { getEmail } from './emails.service.ts';

/** contract §6: GET /emails/{id} (secret key, or session with X-Project-Id). */
export const emailsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {

  app.get(
    '/emails/:id',
    {
      config: { auth: 'project' },
      schema: { tags: ['emails'], security: [{ apiKey: [] }, { session: [] }], summary: 'One email record', params: emailIdParams, response: { 200: emailSchema } },
    },
    async (request) => getEmail(deps, projectOf(request).id, request.params.id),
  );
};
