import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf, userOf } from '../http/auth.ts';
import { createProjectBody, keysResponse, projectIdParams, projectListResponse, projectResponse, updateProjectBody, whoamiResponse } from './projects.schemas.ts';
import { changeProject, createProject, listProjects, regenerateKeys, removeProject, whoami } from './projects.service.ts';

const tags = ['projects'];
const security = [{ session: [] }];

/**
 * The logged-in user's projects (docs/decisions/accounts.md). These take the session only and check membership
 * themselves: a project the caller is not a member of answers 404.
 */
export const projectsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/users/@me/projects',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'List my projects with my role', response: { 200: projectListResponse } } },
    async (request) => ({ data: await listProjects(deps, userOf(request).id) }),
  );

  app.post(
    '/users/@me/projects',
    {
      config: { auth: 'session' },
      schema: { tags, security, summary: 'Create a project (I become its OWNER)', body: createProjectBody, response: { 201: projectResponse } },
    },
    async (request, reply) => reply.status(201).send(await createProject(deps, userOf(request).id, request.body.name)),
  );

  app.patch(
    '/users/@me/projects/:id',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        security,
        summary: 'Rename, disable or re-enable a project, or set its open and click tracking (OWNER or ADMIN)',
        params: projectIdParams,
        body: updateProjectBody,
        response: { 200: projectResponse },
      },
    },
    async (request) => changeProject(deps, request.params.id, userOf(request).id, request.body),
  );

  app.delete(
    '/users/@me/projects/:id',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'Delete a project and all its data (OWNER)', params: projectIdParams } },
    async (request, reply) => {
      await removeProject(deps, request.params.id, userOf(request).id);
      return reply.status(204).send();
    },
  );

  app.post(
    '/users/@me/projects/:id/regenerate-keys',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        security,
        summary: 'Rotate both API keys; the old ones stop working at once (OWNER or ADMIN)',
        params: projectIdParams,
        response: { 200: keysResponse },
      },
    },
    async (request) => regenerateKeys(deps, request.params.id, userOf(request).id),
  );

  app.get(
    '/v1/whoami',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security: [{ apiKey: [] }, { session: [] }],
        summary: 'The project an API key belongs to (a cheap way to check a key)',
        response: { 200: whoamiResponse },
      },
    },
    async (request) => ({ success: true as const, data: await whoami(deps, projectOf(request)) }),
  );
};
