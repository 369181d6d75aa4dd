import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { deliverabilitySchema } from './deliverability.schemas.ts';
import { getDeliverability } from './deliverability.service.ts';

const tags = ['deliverability'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** docs/streams.md: GET /deliverability (secret key, or session with X-Project-Id). */
export const deliverabilityRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/deliverability',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Sending rates per receiving provider and stream, and their deferrals in the last hour',
        response: { 200: deliverabilitySchema },
      },
    },
    async (request) => getDeliverability(deps, projectOf(request).id),
  );
};
