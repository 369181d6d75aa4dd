import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { notFoundPageHtml, PAGE_HEADERS } from '../links/pages.ts';
import { PIXEL_GIF, trackClick, trackOpen } from './email-tracking.ts';

const tags = ['links'];
// Any string: a malformed token is a 404 like a forged one (docs/decisions/sending.md), never a 422.
const params = z.object({ token: z.string() });

/**
 * The open pixel and the click redirect under PUBLIC_URL (docs/decisions/sending.md), beside the
 * subscription pages of src/links/links.routes.ts. No authentication: the signed token is the credential.
 */
export const emailTrackingRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.get(
    '/t/o/:token',
    { config: { auth: 'none' }, schema: { tags, params, summary: 'Open pixel: a 1×1 GIF, always; a valid token records email.opened' } },
    async (request, reply) => {
      try {
        await trackOpen(deps, request.params.token, { record: request.method === 'GET' });
      } catch (error) {
        // The pixel is answered whatever happens: a broken image in the reader's mail helps nobody.
        request.log.error({ err: error }, 'recording an open failed');
      }
      return reply
        .code(200)
        .headers({ 'content-type': 'image/gif', 'cache-control': 'no-store, no-cache, must-revalidate, private', pragma: 'no-cache', expires: '0' })
        .send(PIXEL_GIF);
    },
  );

  app.get(
    '/t/c/:token',
    { config: { auth: 'none' }, schema: { tags, params, summary: 'Click redirect: 302 to the URL of the message; records email.clicked' } },
    async (request, reply) => {
      const url = await trackClick(deps, request.params.token, { record: request.method === 'GET' });
      if (!url) return reply.code(404).headers(PAGE_HEADERS).send(notFoundPageHtml());
      return reply.code(302).headers({ location: url, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }).send();
    },
  );
};
