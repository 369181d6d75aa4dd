import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { userOf } from '../http/auth.ts';
import { apiKeyParams, apiKeysResponse, createApiKeyBody, createdApiKeyResponse } from './api-keys.schemas.ts';
import { createApiKey, listProjectApiKeys, revokeProjectApiKey } from './api-keys.service.ts';
import { projectIdParams } from './projects.schemas.ts';

const tags = ['projects'];
const security = [{ session: [] }];

/** Named secret keys with a scope (docs/security.md), managed from the dashboard by OWNER and ADMIN. */
export const apiKeysRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.post(
    '/users/@me/projects/:id/api-keys',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        security,
        summary: 'Create a named secret key with a scope; the key is shown in this answer only (OWNER or ADMIN)',
        params: projectIdParams,
        body: createApiKeyBody,
        response: { 201: createdApiKeyResponse },
      },
    },
    async (request, reply) => reply.status(201).send(await createApiKey(deps, request.params.id, userOf(request).id, request.body)),
  );

  app.get(
    '/users/@me/projects/:id/api-keys',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        security,
        summary: "The project's named keys: name, scope, sender domains, last use (OWNER or ADMIN)",
        params: projectIdParams,
        response: { 200: apiKeysResponse },
      },
    },
    async (request) => listProjectApiKeys(deps, request.params.id, userOf(request).id),
  );

  app.delete(
    '/users/@me/projects/:id/api-keys/:keyId',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'Revoke a named key: it stops working at once, on every process (OWNER or ADMIN)', params: apiKeyParams } },
    async (request, reply) => {
      await revokeProjectApiKey(deps, request.params.id, userOf(request).id, request.params.keyId);
      return reply.status(204).send();
    },
  );
};
