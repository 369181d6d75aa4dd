import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { userOf } from '../http/auth.ts';
import { securityResponse } from '../reputation/reputation.schemas.ts';
import { projectIdParams } from './projects.schemas.ts';
import { projectSecurity } from './security.service.ts';

const schema = {
  tags: ['administration'],
  security: [{ session: [] }],
  summary: 'Bounce and complaint rates (7 days, all time), thresholds and suspensions',
  params: projectIdParams,
  response: { 200: securityResponse },
};

/** the API reference lists the security state under both paths; they answer the same (session, any member). */
export const reputationRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  for (const path of ['/users/@me/projects/:id/security', '/projects/:id/security']) {
    app.get(path, { config: { auth: 'session' }, schema }, async (request) => projectSecurity(deps, request.params.id, userOf(request).id));
  }
};
