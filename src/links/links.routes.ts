import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { changeSubscription, type PagePurpose, type SubscriptionPage, subscriptionPage } from './links.service.ts';
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
 * The public link pages under PUBLIC_URL (docs/decisions/sending.md): unsubscribe, subscribe and manage (the
 * open pixel and the click redirect, which count on an email record, are src/emails/email-tracking.routes.ts).
 * No authentication: the signed token is the credential.
 */
export const linksRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  // RFC 8058 one-click POSTs are form-encoded (multipart/form-data or urlencoded). Only this plugin
  // accepts those types; the body's content never matters, the token decides.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addContentTypeParser('multipart/form-data', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, _body, done) => done(null, {}));

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
