import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { wakeWebhookDelivery } from './webhooks.jobs.ts';
import {
  createEndpointBody,
  endpointIdParams,
  endpointList,
  endpointSchema,
  endpointWithSecret,
  listMessagesQuery,
  messageIdParams,
  messagePage,
  replayCount,
  replayWindowBody,
  secretResponse,
  updateEndpointBody,
} from './webhooks.schemas.ts';
import * as service from './webhooks.service.ts';

const tags = ['webhook endpoints'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];
const auth = { auth: 'project' as const };

/** The customer's webhook endpoints, their message log and replays (docs/decisions/webhook-endpoints.md). */
export const webhooksRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.post(
    '/webhook-endpoints',
    {
      config: auth,
      schema: { tags, security, summary: 'Add an endpoint; the answer holds its signing secret, shown only here', body: createEndpointBody, response: { 201: endpointWithSecret } },
    },
    async (request, reply) => {
      const project = projectOf(request);
      service.requireChange(project, 'add webhook endpoints');
      return reply.status(201).send(await service.createEndpoint(deps, project.id, request.body));
    },
  );

  app.get(
    '/webhook-endpoints',
    { config: auth, schema: { tags, security, summary: "The project's endpoints (without secrets)", response: { 200: endpointList } } },
    async (request) => service.listEndpoints(deps, projectOf(request).id),
  );

  app.get(
    '/webhook-endpoints/:id',
    { config: auth, schema: { tags, security, summary: 'One endpoint', params: endpointIdParams, response: { 200: endpointSchema } } },
    async (request) => service.getEndpoint(deps, projectOf(request).id, request.params.id),
  );

  app.patch(
    '/webhook-endpoints/:id',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Change url, events, description or enabled; enabling resumes its waiting messages',
        params: endpointIdParams,
        body: updateEndpointBody,
        response: { 200: endpointSchema },
      },
    },
    async (request) => {
      const project = projectOf(request);
      service.requireChange(project, 'change webhook endpoints');
      const endpoint = await service.updateEndpoint(deps, project.id, request.params.id, request.body);
      if (request.body.enabled) wakeWebhookDelivery(deps);
      return endpoint;
    },
  );

  app.delete(
    '/webhook-endpoints/:id',
    { config: auth, schema: { tags, security, summary: 'Remove an endpoint with its messages', params: endpointIdParams, response: { 204: z.null() } } },
    async (request, reply) => {
      const project = projectOf(request);
      service.requireChange(project, 'remove webhook endpoints');
      await service.deleteEndpoint(deps, project.id, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/webhook-endpoints/:id/rotate-secret',
    {
      config: auth,
      schema: { tags, security, summary: 'A new signing secret; the old one signs beside it for 24 hours', params: endpointIdParams, response: { 200: secretResponse } },
    },
    async (request) => {
      const project = projectOf(request);
      service.requireChange(project, 'rotate webhook secrets');
      return service.rotateSecret(deps, project.id, request.params.id);
    },
  );

  app.get(
    '/webhook-endpoints/:id/messages',
    {
      config: auth,
      schema: {
        tags,
        security,
        summary: 'Messages to this endpoint with every attempt, newest first',
        params: endpointIdParams,
        querystring: listMessagesQuery,
        response: { 200: messagePage },
      },
    },
    async (request) => service.listMessages(deps, projectOf(request).id, request.params.id, request.query),
  );

  app.post(
    '/webhook-endpoints/:id/messages/:messageId/replay',
    { config: auth, schema: { tags, security, summary: 'A new attempt of one message now', params: messageIdParams, response: { 202: z.null() } } },
    async (request, reply) => {
      const project = projectOf(request);
      service.requireChange(project, 'replay webhook messages');
      await service.replayMessage(deps, project.id, request.params.id, request.params.messageId);
      wakeWebhookDelivery(deps);
      return reply.status(202).send(null);
    },
  );

  app.post(
    '/webhook-endpoints/:id/replay',
    {
      config: auth,
      schema: { tags, security, summary: 'Send every failed message of [since, until) again', params: endpointIdParams, body: replayWindowBody, response: { 202: replayCount } },
    },
    async (request, reply) => {
      const project = projectOf(request);
      service.requireChange(project, 'replay webhook messages');
      const replayed = await service.replayWindow(deps, project.id, request.params.id, request.body);
      if (replayed.count) wakeWebhookDelivery(deps);
      return reply.status(202).send(replayed);
    },
  );
};
