import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { contactIdParams } from '../contacts/contacts.schemas.ts';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { segmentsOfContact } from './contact-segments.ts';
import {
  addedMembers,
  addMembersBody,
  computedMembership,
  contactSegmentList,
  removedMembers,
  removeMembersBody,
  segmentBody,
  segmentContactsPage,
  segmentContactsQuery,
  segmentIdParams,
  segmentSchema,
  segmentUsageSchema,
} from './segments.schemas.ts';
import {
  addSegmentMembers,
  computeSegment,
  createSegment,
  deleteSegment,
  getSegment,
  listSegmentContacts,
  listSegments,
  refreshSegment,
  removeSegmentMembers,
  updateSegment,
} from './segments.service.ts';
import { segmentUsage } from './segments.usage.ts';

const tags = ['segments'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];
const config = { auth: 'project' as const };
const params = segmentIdParams;

/** the API reference (Segments) and docs/decisions/segments.md (auth: secret key, or session with X-Project-Id). */
export const segmentsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get('/segments', { config, schema: { tags, security, summary: 'All segments (no pagination)', response: { 200: z.array(segmentSchema) } } }, async (request) =>
    listSegments(deps, projectOf(request).id),
  );

  app.post(
    '/segments',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Create a segment (DYNAMIC with a condition tree, or STATIC); a bad body is a flat 400 { error }',
        body: segmentBody.optional(),
        response: { 201: segmentSchema },
      },
    },
    async (request, reply) => reply.status(201).send(await createSegment(deps, projectOf(request).id, request.body)),
  );

  app.get(
    '/contacts/:id/segments',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'The segments a contact is a member of now (live, as segment counts are), by name',
        params: contactIdParams,
        response: { 200: contactSegmentList },
      },
    },
    async (request) => segmentsOfContact(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/segments/:id/usage',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'What uses a segment: campaigns, other segments, and workflows its membership events start',
        params,
        response: { 200: segmentUsageSchema },
      },
    },
    async (request) => segmentUsage(deps, projectOf(request).id, request.params.id),
  );

  app.get('/segments/:id', { config, schema: { tags, security, summary: 'One segment with its cached memberCount', params, response: { 200: segmentSchema } } }, async (request) =>
    getSegment(deps, projectOf(request).id, request.params.id),
  );

  app.patch(
    '/segments/:id',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Update name, description, condition (DYNAMIC only) or trackMembership',
        params,
        body: segmentBody.optional(),
        response: { 200: segmentSchema },
      },
    },
    async (request) => updateSegment(deps, projectOf(request).id, request.params.id, request.body),
  );

  app.delete(
    '/segments/:id',
    { config, schema: { tags, security, summary: 'Delete a segment; 409 while a DRAFT, SCHEDULED or SENDING campaign uses it', params, response: { 204: z.null() } } },
    async (request, reply) => {
      await deleteSegment(deps, projectOf(request).id, request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/segments/:id/contacts',
    {
      config,
      schema: { tags, security, summary: 'Members, page-based (live for DYNAMIC segments)', params, querystring: segmentContactsQuery, response: { 200: segmentContactsPage } },
    },
    async (request) => listSegmentContacts(deps, projectOf(request).id, request.params.id, request.query),
  );

  app.post(
    '/segments/:id/members',
    { config, schema: { tags, security, summary: 'Add contacts to a STATIC segment by email', params, body: addMembersBody, response: { 200: addedMembers } } },
    async (request) => addSegmentMembers(deps, projectOf(request).id, request.params.id, request.body),
  );

  app.delete(
    '/segments/:id/members',
    { config, schema: { tags, security, summary: 'Remove contacts from a STATIC segment by email', params, body: removeMembersBody, response: { 200: removedMembers } } },
    async (request) => removeSegmentMembers(deps, projectOf(request).id, request.params.id, request.body.emails),
  );

  app.post(
    '/segments/:id/compute',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Recompute the membership of a tracked DYNAMIC segment; emits segment.<slug>.entry / .exit',
        params,
        response: { 200: computedMembership },
      },
    },
    async (request) => computeSegment(deps, projectOf(request).id, request.params.id),
  );

  app.post(
    '/segments/:id/refresh',
    { config, schema: { tags, security, summary: 'Refresh the cached memberCount only (no events, no membership writes)', params, response: { 200: segmentSchema } } },
    async (request) => refreshSegment(deps, projectOf(request).id, request.params.id),
  );
};
