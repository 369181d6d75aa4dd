import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { projectOf } from '../http/auth.ts';
import { inboundIdParams, inboundListQuery, inboundMessageSchema, inboundPage } from './inbound.schemas.ts';
import { getInboundMessage, getInboundRaw, listInboundMessages } from './inbound.service.ts';

const tags = ['inbound'];
const security: Array<Record<string, string[]>> = [{ apiKey: [] }, { session: [] }];

/** Received mail (docs/inbound.md): the list, one message parsed, and its raw MIME (secret key, or session with X-Project-Id). */
export const inboundRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/inbound',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'Received messages, newest first (cursor pagination)', querystring: inboundListQuery, response: { 200: inboundPage } },
    },
    async (request) => listInboundMessages(deps, projectOf(request).id, request.query),
  );

  app.get(
    '/inbound/:id',
    {
      config: { auth: 'project' },
      schema: { tags, security, summary: 'One received message, parsed: headers, text, HTML, attachments', params: inboundIdParams, response: { 200: inboundMessageSchema } },
    },
    async (request) => getInboundMessage(deps, projectOf(request).id, request.params.id),
  );

  app.get(
    '/inbound/:id/raw',
    {
      config: { auth: 'project' },
      schema: {
        tags,
        security,
        summary: 'One received message exactly as it arrived (message/rfc822)',
        params: inboundIdParams,
        response: { 200: z.string().describe('message/rfc822') },
      },
    },
    async (request, reply) => {
      const raw = await getInboundRaw(deps, projectOf(request).id, request.params.id);
      // A Buffer is sent as it is, never serialized: the schema only documents the body.
      return reply
        .type('message/rfc822')
        .header('content-disposition', `attachment; filename="${request.params.id}.eml"`)
        .send(raw as unknown as string);
    },
  );
};
