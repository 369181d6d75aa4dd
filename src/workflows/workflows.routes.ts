import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { conditionFields } from './condition-fields.ts';
import { simulate } from './engine/simulate.ts';
import { executionsRoutes } from './executions.routes.ts';
import { workflowStats as workflowStatsOf } from './executions.service.ts';
import type { Actor } from './versions.ts';
import {
  conditionFields as conditionFieldsSchema,
  createStepBody,
  createTransitionBody,
  createWorkflowBody,
  deleteStepQuery,
  fieldsQuery,
  patchStepBody,
  patchWorkflowBody,
  simulateBody,
  simulation,
  stepParams,
  stepSchema,
  transitionParams,
  transitionSchema,
  versionList,
  versionParams,
  workflowList,
  workflowParams,
  workflowSchema,
  workflowStats,
} from './workflows.schemas.ts';
import * as service from './workflows.service.ts';

const tags = ['workflows'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];
const config = { auth: 'project' as const };
const noContent = { 204: z.null() };

/** Who makes a change, for the versions list: the dashboard user, or an API key. */
function actorOf(request: FastifyRequest): Actor {
  return request.user ? { userId: request.user.id } : { apiKey: true };
}

/** the API reference (Workflows) (docs/decisions/workflows.md): secret key, or session with X-Project-Id. */
export const workflowsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get('/workflows', { config, schema: { tags, security, summary: 'List workflows with their steps and transitions', response: { 200: workflowList } } }, async (request) =>
    service.listWorkflows(deps, projectOf(request).id),
  );

  app.get(
    '/workflows/stats',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Per workflow: executions running and waiting now, and finished among those started in the last 7 days',
        response: { 200: workflowStats },
      },
    },
    async (request) => workflowStatsOf(deps, projectOf(request).id),
  );

  app.get(
    '/workflows/fields',
    { config, schema: { tags, security, summary: 'Fields and event names usable in CONDITION steps', querystring: fieldsQuery, response: { 200: conditionFieldsSchema } } },
    async (request) => conditionFields(deps, projectOf(request).id, request.query.eventName),
  );

  app.post(
    '/workflows',
    {
      config,
      schema: { tags, security, summary: 'Create a workflow (EVENT trigger, disabled, with its TRIGGER step)', body: createWorkflowBody, response: { 201: workflowSchema } },
    },
    async (request, reply) => reply.status(201).send(await service.createWorkflow(deps, projectOf(request).id, request.body, actorOf(request))),
  );

  app.get(
    '/workflows/:id',
    { config, schema: { tags, security, summary: 'A workflow with its steps and transitions', params: workflowParams, response: { 200: workflowSchema } } },
    async (request) => service.getWorkflow(deps, projectOf(request).id, request.params.id),
  );

  app.patch(
    '/workflows/:id',
    {
      config,
      schema: { tags, security, summary: 'Update metadata, trigger, enabled or allowReentry', params: workflowParams, body: patchWorkflowBody, response: { 200: workflowSchema } },
    },
    async (request) => service.patchWorkflow(deps, projectOf(request).id, request.params.id, request.body),
  );

  app.delete(
    '/workflows/:id',
    { config, schema: { tags, security, summary: 'Delete a workflow (409 while executions are RUNNING or WAITING)', params: workflowParams, response: noContent } },
    async (request, reply) => {
      await service.deleteWorkflow(deps, projectOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/workflows/:id/steps',
    { config, schema: { tags, security, summary: 'Add a step of one of the seven types', params: workflowParams, body: createStepBody, response: { 201: stepSchema } } },
    async (request, reply) => reply.status(201).send(await service.addStep(deps, projectOf(request).id, request.params.id, request.body, actorOf(request))),
  );

  app.patch(
    '/workflows/:id/steps/:stepId',
    { config, schema: { tags, security, summary: "Update a step's name or config", params: stepParams, body: patchStepBody, response: { 200: stepSchema } } },
    async (request) => service.patchStep(deps, projectOf(request).id, request.params.id, request.params.stepId, request.body, actorOf(request)),
  );

  app.delete(
    '/workflows/:id/steps/:stepId',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Delete a step; splice=true joins its predecessor to its successor',
        params: stepParams,
        querystring: deleteStepQuery,
        response: noContent,
      },
    },
    async (request, reply) => {
      const { id, stepId } = request.params;
      await service.deleteStep(deps, projectOf(request).id, id, stepId, request.query.splice === 'true', actorOf(request));
      return reply.status(204).send(null);
    },
  );

  app.post(
    '/workflows/:id/transitions',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Connect two steps (branch yes/no out of a CONDITION)',
        params: workflowParams,
        body: createTransitionBody,
        response: { 201: transitionSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await service.addTransition(deps, projectOf(request).id, request.params.id, request.body, actorOf(request))),
  );

  app.delete(
    '/workflows/:id/transitions/:transitionId',
    { config, schema: { tags, security, summary: 'Delete a transition', params: transitionParams, response: noContent } },
    async (request, reply) => {
      await service.deleteTransition(deps, projectOf(request).id, request.params.id, request.params.transitionId, actorOf(request));
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/workflows/:id/versions',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Versions of the graph, newest first, with what changed and the executions on each',
        params: workflowParams,
        response: { 200: versionList },
      },
    },
    async (request) => service.listVersions(deps, projectOf(request).id, request.params.id),
  );

  app.post(
    '/workflows/:id/versions/:version/restore',
    { config, schema: { tags, security, summary: "Make an older version's graph the newest version", params: versionParams, response: { 200: workflowSchema } } },
    async (request) => service.restoreVersion(deps, projectOf(request).id, request.params.id, request.params.version, actorOf(request)),
  );

  app.post(
    '/workflows/:id/simulate',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Dry run: the path a new execution for a contact would take now, with nothing sent or written',
        params: workflowParams,
        body: simulateBody,
        response: { 200: simulation },
      },
    },
    async (request) => simulate(deps, projectOf(request).id, request.params.id, request.body),
  );

  await app.register(executionsRoutes, deps);
};
