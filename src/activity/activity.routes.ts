import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import {
  activityPage,
  activityQuery,
  recentCountQuery,
  recentCountResponse,
  statsQuery,
  statsResponse,
  typesResponse,
  upcomingQuery,
  upcomingResponse,
} from './activity.schemas.ts';
import { activityStats, activityTypes, listActivity, recentCount, upcoming } from './activity.service.ts';

const tags = ['activity'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** the API reference (Activity) (docs/decisions/contacts-and-events.md): secret key, or session with X-Project-Id. */
export const activityRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/activity',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'The activity feed, newest first (cursor pagination)', querystring: activityQuery, response: { 200: activityPage } },
    },
    async (request) => listActivity(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/activity/stats',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'Totals and rates over a window', querystring: statsQuery, response: { 200: statsResponse } } },
    async (request) => activityStats(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/activity/recent-count',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'How much activity since an instant (cheap to poll)', querystring: recentCountQuery, response: { 200: recentCountResponse } },
    },
    async (request) => recentCount(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/activity/types',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'The activity types recorded in this project', response: { 200: typesResponse } } },
    async (request) => activityTypes(deps, projectOf(request).id),
  );

  app.get(
    '/activity/upcoming',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Scheduled campaigns and waiting workflow steps due soon', querystring: upcomingQuery, response: { 200: upcomingResponse } },
    },
    async (request) => upcoming(deps, projectOf(request).id, request.query),
  );
};
