import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { fieldDeleteResponse, fieldListResponse, fieldParams, fieldUsageResponse, fieldValuesResponse } from './contact-fields.schemas.ts';
import { deleteField, fieldUsage, listFields, listFieldValues } from './contact-fields.service.ts';

const tags = ['contacts'];
const security: Record<string, string[]>[] = [{ apiKey: [] }, { session: [] }];

/** Contact field management (the API reference (Contacts): /contacts/fields…). */
export const contactFieldsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/contacts/fields',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'Standard and custom contact fields with inferred types and coverage (cached, refreshed in the background)',
        response: { 200: fieldListResponse },
      },
    },
    async (request) => ({ data: await listFields(deps, projectOf(request).id) }),
  );

  app.get(
    '/contacts/fields/:field/values',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Up to 100 distinct values of a custom field, most frequent first', params: fieldParams, response: { 200: fieldValuesResponse } },
    },
    async (request) => listFieldValues(deps, projectOf(request).id, request.params.field),
  );

  app.get(
    '/contacts/fields/:field/usage',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Segments, campaigns and workflows that reference a field', params: fieldParams, response: { 200: fieldUsageResponse } },
    },
    async (request) => fieldUsage(deps, projectOf(request).id, request.params.field),
  );

  app.delete(
    '/contacts/fields/:field',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Delete a custom field from every contact of the project', params: fieldParams, response: { 200: fieldDeleteResponse } },
    },
    async (request) => deleteField(deps, projectOf(request).id, request.params.field),
  );
};
