import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { trackBody, trackResponse } from './track.schemas.ts';
import { trackEvent } from './track.service.ts';
import { TrackWriter } from './track-writer.ts';

const tags = ['events'];

/**
 * the API reference (POST) /v1/track (docs/decisions/contacts-and-events.md): an event for a contact,
 * which it creates or updates; built on contacts and the event log, which it writes in one statement.
 */
export const trackRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  const tracks = new TrackWriter(deps);
  // The public-key endpoint; the dashboard alias below takes a session instead (the API reference (Events)).
  app.post(
    '/v1/track',
    {
      config: { auth: 'public', idempotent: true },
      schema: {
        tags,
        security: [{ apiKey: [] }],
        summary: 'Track an event for a contact (public key; creates or updates the contact)',
        body: trackBody,
        response: { 200: trackResponse },
      },
    },
    async (request) => ({ success: true as const, data: await trackEvent(tracks, projectOf(request).id, request.body) }),
  );

  app.post(
    '/events/track',
    {
      config: { auth: 'sessionProject', idempotent: true },
      schema: { tags, security: [{ session: [] }], summary: 'Track an event (dashboard alias of /v1/track)', body: trackBody, response: { 200: trackResponse } },
    },
    async (request) => ({ success: true as const, data: await trackEvent(tracks, projectOf(request).id, request.body) }),
  );
};
