import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import {
  contactEventsParams,
  contactEventsQuery,
  deleteResponse,
  eventNameParams,
  eventPage,
  listEventsQuery,
  namesResponse,
  statsQuery,
  statsResponse,
  usageResponse,
} from './events.schemas.ts';
import { deleteEvents, eventNames, eventStats, eventUsage, listContactEvents, listEvents } from './events.service.ts';

const tags = ['events'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** the API reference (POST) /v1/track and the Events table (docs/decisions/contacts-and-events.md). */
export const eventsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/events',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Recent events, newest first (cursor pagination)', querystring: listEventsQuery, response: { 200: eventPage } },
    },
    async (request) => listEvents(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/events/stats',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Event counts per name and per UTC day over [from, to)', querystring: statsQuery, response: { 200: statsResponse } },
    },
    async (request) => eventStats(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/events/names',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'Distinct event names of the project', response: { 200: namesResponse } } },
    async (request) => eventNames(deps, projectOf(request).id),
  );

  app.get(
    '/events/contact/:contactId',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: "A contact's events, newest first", params: contactEventsParams, querystring: contactEventsQuery, response: { 200: eventPage } },
    },
    async (request) => listContactEvents(deps, projectOf(request).id, request.params.contactId, request.query),
  );

  app.get(
    '/events/:eventName/usage',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Segments, campaigns and workflows referencing an event name', params: eventNameParams, response: { 200: usageResponse } },
    },
    async (request) => eventUsage(deps, projectOf(request).id, request.params.eventName),
  );

  app.delete(
    '/events/:eventName',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'Delete every event with this name', params: eventNameParams, response: { 200: deleteResponse } } },
    async (request) => deleteEvents(deps, projectOf(request).id, request.params.eventName),
  );
};
