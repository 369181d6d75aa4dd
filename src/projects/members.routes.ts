import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { userOf } from '../http/auth.ts';
import { addMember, changeMemberRole, membersOf, removeMember } from './members.service.ts';
import { addMemberBody, invitationResponse, memberListResponse, memberParams, memberResponse, projectIdParams, updateMemberBody } from './projects.schemas.ts';

const tags = ['members'];
const security = [{ session: [] }];

/** Team members of a project (docs/decisions/accounts.md); session only, membership checked in the service. */
export const membersRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/projects/:id/members',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'List members', params: projectIdParams, response: { 200: memberListResponse } } },
    async (request) => ({ data: await membersOf(deps, request.params.id, userOf(request).id) }),
  );

  app.post(
    '/projects/:id/members',
    {
      config: { auth: 'session' },
      schema: {
        tags,
        security,
        summary: 'Add a user by email (201), or invite an address with no account by email (202) (OWNER or ADMIN)',
        params: projectIdParams,
        body: addMemberBody,
        response: { 201: memberResponse, 202: invitationResponse },
      },
    },
    async (request, reply) => {
      const added = await addMember(deps, request.params.id, userOf(request).id, request.body.email, request.body.role);
      return added.member ? reply.status(201).send(added.member) : reply.status(202).send({ invited: true as const, ...added.invitation });
    },
  );

  app.patch(
    '/projects/:id/members/:userId',
    {
      config: { auth: 'session' },
      schema: { tags, security, summary: "Change a member's role (OWNER or ADMIN)", params: memberParams, body: updateMemberBody, response: { 200: memberResponse } },
    },
    async (request) => changeMemberRole(deps, request.params.id, userOf(request).id, request.params.userId, request.body.role),
  );

  app.delete(
    '/projects/:id/members/:userId',
    { config: { auth: 'session' }, schema: { tags, security, summary: 'Remove a member, or leave the project', params: memberParams } },
    async (request, reply) => {
      await removeMember(deps, request.params.id, userOf(request).id, request.params.userId);
      return reply.status(204).send();
    },
  );
};
