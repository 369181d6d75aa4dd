import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { addSuppressionBody, listSuppressionsQuery, suppressionPage, suppressionParams, suppressionSchema } from './suppressions.schemas.ts';
import { addSuppression, type Caller, listSuppressionPage, removeSuppression } from './suppressions.service.ts';

const tags = ['suppressions'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

const callerOf = (request: FastifyRequest): Caller => ({ ...projectOf(request), userId: request.user?.id });

/** docs/decisions/sending.md: the project's suppression list (secret key, or session with X-Project-Id). */
export const suppressionsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/suppressions',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Addresses never sent to again, newest first', querystring: listSuppressionsQuery, response: { 200: suppressionPage } },
    },
    async (request) => listSuppressionPage(deps, projectOf(request).id, request.query),
  );

  app.post(
    '/suppressions',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Suppress an address (its contact is unsubscribed); 200 when it was already listed',
        body: addSuppressionBody,
        response: { 200: suppressionSchema, 201: suppressionSchema },
      },
    },
    async (request, reply) => {
      const { suppression, created } = await addSuppression(deps, callerOf(request), request.body);
      return reply.status(created ? 201 : 200).send(suppression);
    },
  );

  app.delete(
    '/suppressions/:email',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Remove an address from the list: it may be mailed again (OWNER or ADMIN with a session)', params: suppressionParams },
    },
    async (request, reply) => {
      await removeSuppression(deps, callerOf(request), request.params.email);
      return reply.status(204).send();
    },
  );
};
