import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { userOf } from '../http/auth.ts';
import { auditPage, auditQuery } from './audit.schemas.ts';
import { auditLog } from './audit.service.ts';
import { projectIdParams } from './projects.schemas.ts';

/** The audit log of administrative actions: session only, OWNER and ADMIN. */
export const auditRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/projects/:id/audit-log',
    {
      config: { auth: 'session' },
      schema: {
        tags: ['administration'],
        security: [{ session: [] }],
        summary: 'Administrative actions on the project, newest first (OWNER or ADMIN)',
        params: projectIdParams,
        querystring: auditQuery,
        response: { 200: auditPage },
      },
    },
    async (request) => auditLog(deps, request.params.id, userOf(request).id, request.query),
  );
};
