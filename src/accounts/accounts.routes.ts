import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SESSION_COOKIE, sessionCookieOptions } from '../auth/sessions.ts';
import type { Deps } from '../deps.ts';
import { userOf } from '../http/auth.ts';
import { accountResponse, credentialsBody, loginBody, logoutResponse, meResponse } from './accounts.schemas.ts';
import { currentUser, logIn, signUp } from './accounts.service.ts';

/** Sign-up, log-in, log-out and the current user (contract §2; api.md Authentication 8). */
export const accountsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  // Browsers drop Secure cookies over plain http, so Secure follows the public URL's scheme.
  const cookieOptions = sessionCookieOptions(deps.config.publicUrl.startsWith('https:'));

  async function startSession(reply: FastifyReply, userId: string, generation: number) {
    reply.setCookie(SESSION_COOKIE, await deps.sessions.sign(userId, generation), cookieOptions);
  }

  app.post(
    '/auth/signup',
    {
      schema: { tags: ['accounts'], summary: 'Create an account and log in', body: credentialsBody, response: { 201: accountResponse } },
    },
    async (request, reply) => {
      const { account, sessionGeneration } = await signUp(deps, request.body.email, request.body.password);
      await startSession(reply, account.id, sessionGeneration);
      return reply.status(201).send(account);
    },
  );

  app.post(
    '/auth/login',
    { schema: { tags: ['accounts'], summary: 'Log in with email and password', body: loginBody, response: { 200: accountResponse } } },
    async (request, reply) => {
      const { account, sessionGeneration } = await logIn(deps, request.body.email, request.body.password, request.ip);
      await startSession(reply, account.id, sessionGeneration);
      return account;
    },
  );

  app.get(
    '/auth/logout',
    { schema: { tags: ['accounts'], summary: 'Log out (clears the session cookie)', response: { 200: logoutResponse } } },
    async (_request, reply) => {
      reply.clearCookie(SESSION_COOKIE, { path: cookieOptions.path, httpOnly: true, sameSite: 'lax', secure: cookieOptions.secure });
      return { success: true as const };
    },
  );

  app.get(
    '/users/@me',
    {
      config: { auth: 'session' },
      schema: { tags: ['accounts'], summary: 'The logged-in user', security: [{ session: [] }], response: { 200: meResponse } },
    },
    async (request) => currentUser(deps, userOf(request).id),
  );
};
