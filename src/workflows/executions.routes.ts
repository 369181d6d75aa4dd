import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { contactIdParams } from '../contacts/contacts.schemas.ts';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import {
  activeByStep,
  cancelAllResult,
  contactExecutionPage,
  contactExecutionsQuery,
  executionDetailSchema,
  executionPage,
  executionParams,
  executionSchema,
  listExecutionsQuery,
  startExecutionBody,
} from './executions.schemas.ts';
import { activeExecutionsByStep, cancelAllExecutions, cancelExecution, getExecution, listContactExecutions, listExecutions, startExecution } from './executions.service.ts';
import { workflowParams } from './workflows.schemas.ts';

const tags = ['workflows'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];
const config = { auth: 'project' as const };

/** the API reference (Workflows), the executions rows (docs/decisions/workflows.md). */
export const executionsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.post(
    '/workflows/:id/executions',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Start an execution for a contact, with an optional context',
        params: workflowParams,
        body: startExecutionBody,
        response: { 201: executionSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await startExecution(deps, projectOf(request).id, request.params.id, request.body)),
  );

  app.get(
    '/contacts/:id/executions',
    {
      config,
      schema: {
        tags,
        security,
        summary: "A contact's executions of every workflow, newest first (cursor pagination)",
        params: contactIdParams,
        querystring: contactExecutionsQuery,
        response: { 200: contactExecutionPage },
      },
    },
    async (request) => listContactExecutions(deps, projectOf(request).id, request.params.id, request.query),
  );

  app.get(
    '/workflows/:id/executions',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Executions, newest first (cursor pagination, status filter)',
        params: workflowParams,
        querystring: listExecutionsQuery,
        response: { 200: executionPage },
      },
    },
    async (request) => listExecutions(deps, projectOf(request).id, request.params.id, request.query),
  );

  // Before /:executionId, which would otherwise not match this POST anyway; kept first for clarity.
  app.post(
    '/workflows/:id/executions/cancel-all',
    { config, schema: { tags, security, summary: 'Cancel every RUNNING and WAITING execution', params: workflowParams, response: { 200: cancelAllResult } } },
    async (request) => cancelAllExecutions(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/workflows/:id/executions/active',
    {
      config,
      schema: { tags, security, summary: 'How many executions run or wait at each step now (all versions)', params: workflowParams, response: { 200: activeByStep } },
    },
    async (request) => activeExecutionsByStep(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/workflows/:id/executions/:executionId',
    { config, schema: { tags, security, summary: 'An execution with its step records', params: executionParams, response: { 200: executionDetailSchema } } },
    async (request) => getExecution(deps, projectOf(request).id, request.params.id, request.params.executionId),
  );

  app.delete(
    '/workflows/:id/executions/:executionId',
    { config, schema: { tags, security, summary: 'Cancel a RUNNING or WAITING execution', params: executionParams, response: { 200: executionSchema } } },
    async (request) => cancelExecution(deps, projectOf(request).id, request.params.id, request.params.executionId),
  );
};
