import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { badRequest } from '../errors.ts';
import { sesAccepted } from './ses.schemas.ts';
import { receiveSns } from './ses.service.ts';

/** Internal receivers for mail infrastructure (the API reference "POST /webhooks/<mail_infrastructure>"). */
export const sesRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  // SNS posts its JSON with Content-Type text/plain; parse it as JSON here (this plugin only).
  app.addContentTypeParser('text/plain', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(badRequest('The body is not JSON.'), undefined);
    }
  });

  app.post(
    '/webhooks/ses',
    {
      config: { auth: 'none' },
      schema: {
        tags: ['webhooks'],
        summary: 'Amazon SNS notifications from SES (bounce, complaint, delivery); the SNS signature is checked',
        response: { 200: sesAccepted },
      },
    },
    async (request) => receiveSns(deps, request.body, request.log),
  );
};
