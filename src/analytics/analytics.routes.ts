import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import {
  campaignStatsQuery,
  campaignStatsResponse,
  timeseriesQuery,
  timeseriesResponse,
  topCampaignsQuery,
  topCampaignsResponse,
  topEventsQuery,
  topEventsResponse,
} from './analytics.schemas.ts';
import { campaignStats, timeseries, topCampaigns, topEvents } from './analytics.service.ts';

const tags = ['analytics'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** the API reference (Analytics): read from the rollup tables only, never from raw events. */
export const analyticsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/analytics/timeseries',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'Email metrics per hour or day', querystring: timeseriesQuery, response: { 200: timeseriesResponse } } },
    async (request) => timeseries(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/analytics/top-campaigns',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Campaigns ranked by a metric, as a count or a rate', querystring: topCampaignsQuery, response: { 200: topCampaignsResponse } },
    },
    async (request) => topCampaigns(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/analytics/campaign-stats',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Metrics per campaign; one campaign with its series', querystring: campaignStatsQuery, response: { 200: campaignStatsResponse } },
    },
    async (request) => campaignStats(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/analytics/top-events',
    { config: { auth: 'project' }, schema: { tags, security, summary: 'Most frequent event names', querystring: topEventsQuery, response: { 200: topEventsResponse } } },
    async (request) => topEvents(deps, projectOf(request).id, request.query),
  );
};
