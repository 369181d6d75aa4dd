import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { keyMaySendFrom } from '../auth/api-keys.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { projectOf } from '../http/auth.ts';
import { sendBody, sendResponse } from './send.schemas.ts';
import { prepareSend } from './send-content.ts';
import { SendWriter } from './send-writer.ts';

// 10 MB of attachments is ~13.4 MB of base64, plus the body and the JSON around it (the API reference (Limits)).
const SEND_BODY_LIMIT = 16 * 1024 * 1024;

/** the API reference (POST) /v1/send (secret key): records and queues every recipient; delivery runs in the worker. */
export const sendRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  const writer = new SendWriter(deps);

  app.post(
    '/v1/send',
    {
      bodyLimit: SEND_BODY_LIMIT,
      config: { auth: 'secret', idempotent: true },
      schema: {
        tags: ['send'],
        security: [{ apiKey: [] }],
        summary: 'Send an email to one or more recipients, with a template or inline content',
        body: sendBody,
        response: { 200: sendResponse },
      },
    },
    async (request) => {
      const project = projectOf(request);
      const prepared = await prepareSend(deps, project.id, request.body);
      // A named key may be restricted to some sender domains (docs/security.md).
      if (!keyMaySendFrom(project.senderDomains, prepared.content.from.email))
        throw new AppError('SENDER_DOMAIN_NOT_ALLOWED_FOR_KEY', { details: { allowed: project.senderDomains } });
      return { success: true as const, data: await writer.send(prepared) };
    },
  );
};
