import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { changeSubscription, type PagePurpose, PIXEL_GIF, type SubscriptionPage, subscriptionPage, trackClick, trackOpen } from './links.service.ts';
import { notFoundPageHtml, PAGE_HEADERS, subscriptionPageHtml } from './pages.ts';

const tags = ['links'];
// Any string: a malformed token is a 404 like a forged one (docs/decisions/sending.md), never a 422.
const params = z.object({ token: z.string() });
const FORM_LIMIT = 16 * 1024;

function sendPage(reply: FastifyReply, page: SubscriptionPage | null) {
  return reply
    .code(page ? 200 : 404)
    .headers(PAGE_HEADERS)
    .send(page ? subscriptionPageHtml(page) : notFoundPageHtml());
}

/**
 * The public link endpoints under PUBLIC_URL (docs/decisions/sending.md): open pixel, click redirect, and the
 * unsubscribe, subscribe and manage pages. No authentication: the signed token is the credential.
 */
export const linksRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  // RFC 8058 one-click POSTs are form-encoded (multipart/form-data or urlencoded). Only this plugin
  // accepts those types; the body's content never matters, the token decides.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, _body, done) => done(null, {}));

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

  const pages: Array<{ path: string; purpose: PagePurpose; title: string }> = [
    { path: '/u/:token', purpose: 'unsubscribe', title: 'Unsubscribe' },
    { path: '/s/:token', purpose: 'subscribe', title: 'Subscribe again' },
    { path: '/m/:token', purpose: 'manage', title: 'Manage the subscription' },
  ];
  for (const { path, purpose, title } of pages) {
    app.get(path, { config: { auth: 'none' }, schema: { tags, params, summary: `${title}: a confirmation page (changes nothing)` } }, async (request, reply) =>
      sendPage(reply, await subscriptionPage(deps, purpose, request.params.token)),
    );
  }

  app.post(
    '/u/:token',
    {
      config: { auth: 'none' },
      schema: {
        tags,
        params,
        summary: 'Unsubscribe at once (RFC 8058 body `List-Unsubscribe=One-Click`, or the page button)',
        consumes: ['application/x-www-form-urlencoded', 'multipart/form-data'],
      },
    },
    async (request, reply) => sendPage(reply, await changeSubscription(deps, 'unsubscribe', request.params.token)),
  );

  app.post(
    '/s/:token',
    { config: { auth: 'none' }, schema: { tags, params, summary: 'Subscribe again at once', consumes: ['application/x-www-form-urlencoded', 'multipart/form-data'] } },
    async (request, reply) => sendPage(reply, await changeSubscription(deps, 'subscribe', request.params.token)),
  );
};
