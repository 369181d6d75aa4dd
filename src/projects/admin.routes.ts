import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { userOf } from '../http/auth.ts';
import { resetBody, resetResponse, setupStateResponse } from './admin.schemas.ts';
import { getSetupState, resetProject } from './admin.service.ts';
import { projectIdParams } from './projects.schemas.ts';

const tags = ['administration'];
const security = [{ session: [] }];

/** Project administration beyond create/rename/delete: session only. */
export const projectAdminRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/projects/:id/setup-state',
    {
      config: { auth: 'session' },
      schema: { tags, security, summary: 'Which onboarding steps are done', params: projectIdParams, response: { 200: setupStateResponse } },
    },
    async (request) => getSetupState(deps, request.params.id, userOf(request).id),
  );

  app.post(
    '/users/@me/projects/:id/reset',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        security,
        summary: "Irreversibly wipe the project's data, keeping the project, keys and members (OWNER; confirm by name)",
        params: projectIdParams,
        body: resetBody,
        response: { 200: resetResponse },
      },
    },
    async (request) => resetProject(deps, request.params.id, userOf(request).id, request.body.confirm),
  );
};
