import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SESSION_COOKIE, sessionCookieOptions } from '../auth/sessions.ts';
import { TotpChallenges } from '../auth/totp.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { userOf } from '../http/auth.ts';
import {
  accountResponse,
  changePasswordBody,
  changePasswordResponse,
  credentialsBody,
  endedSessionsResponse,
  loginBody,
  loginResponse,
  loginTotpBody,
  logoutResponse,
  meResponse,
  secondFactorBody,
  sessionParams,
  sessionsResponse,
  totpConfirmBody,
  totpConfirmResponse,
  totpDisableResponse,
  totpEnrolmentResponse,
} from './accounts.schemas.ts';
import { type ClientInfo, changePassword, currentUser, logIn, logInSecondFactor, signUp } from './accounts.service.ts';
import { endOwnSession, listSessions, signOutOtherSessions, signOutSession } from './sessions.service.ts';
import { confirmEnrolment, disableTwoFactor, startEnrolment } from './two-factor.service.ts';

const clientOf = (request: FastifyRequest): ClientInfo => ({ userAgent: request.headers['user-agent'] ?? '', ip: request.ip });

const session = { config: { auth: 'session' as const } };
const security = [{ session: [] }];

/** Sign-up, log-in, log-out, the current user and their sessions (docs/decisions/accounts.md; docs/security.md). */
export const accountsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  // Browsers drop Secure cookies over plain http, so Secure follows the public URL's scheme.
  const cookieOptions = sessionCookieOptions(deps.config.publicUrl.startsWith('https:'));
  const challenges = new TotpChallenges(deps.config.sessionSecret);

  async function startSession(reply: FastifyReply, userId: string, sessionId: string) {
    reply.setCookie(SESSION_COOKIE, await deps.sessions.sign(userId, sessionId), cookieOptions);
  }

  app.post(
    '/auth/signup',
    {
      schema: { tags: ['accounts'], summary: 'Create an account and log in', body: credentialsBody, response: { 201: accountResponse } },
    },
    async (request, reply) => {
      const { account, sessionId } = await signUp(deps, request.body.email, request.body.password, clientOf(request));
      await startSession(reply, account.id, sessionId);
      return reply.status(201).send(account);
    },
  );

  app.post(
    '/auth/login',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Log in with email and password; with two-factor sign-in, answers a challenge for POST /auth/login/totp instead of a session',
        body: loginBody,
        response: { 200: loginResponse },
      },
    },
    async (request, reply) => {
      const result = await logIn(deps, request.body.email, request.body.password, clientOf(request));
      if ('twoFactor' in result) return { twoFactorRequired: true as const, challenge: await challenges.sign(result.twoFactor.userId, result.twoFactor.email) };
      await startSession(reply, result.account.id, result.sessionId);
      return result.account;
    },
  );

  app.post(
    '/auth/login/totp',
    {
      schema: {
        tags: ['accounts'],
        summary: 'Second step of a log-in with two-factor sign-in: the challenge and a code (or a recovery code, usable once) open the session',
        body: loginTotpBody,
        response: { 200: accountResponse },
      },
    },
    async (request, reply) => {
      const challenge = await challenges.verify(request.body.challenge);
      if (!challenge) throw new AppError('INVALID_TOTP_CHALLENGE');
      const { account, sessionId } = await logInSecondFactor(deps, challenge, request.body, clientOf(request));
      await startSession(reply, account.id, sessionId);
      return account;
    },
  );

  app.post(
    '/users/@me/totp',
    {
      ...session,
      schema: {
        tags: ['accounts'],
        summary: 'Start two-factor enrolment: a new TOTP secret, its otpauth:// URI and QR code (confirm with a code to enable)',
        security,
        response: { 200: totpEnrolmentResponse },
      },
    },
    async (request) => startEnrolment(deps, userOf(request).id),
  );

  app.post(
    '/users/@me/totp/confirm',
    {
      ...session,
      schema: {
        tags: ['accounts'],
        summary: 'Confirm two-factor enrolment with a current code: enables it and returns ten recovery codes, shown once',
        security,
        body: totpConfirmBody,
        response: { 200: totpConfirmResponse },
      },
    },
    async (request) => confirmEnrolment(deps, userOf(request).id, request.body.code),
  );

  app.post(
    '/users/@me/totp/disable',
    {
      ...session,
      schema: {
        tags: ['accounts'],
        summary: 'Disable two-factor sign-in, given a current code or a recovery code',
        security,
        body: secondFactorBody,
        response: { 200: totpDisableResponse },
      },
    },
    async (request) => disableTwoFactor(deps, userOf(request).id, request.body),
  );

  app.get(
    '/auth/logout',
    { schema: { tags: ['accounts'], summary: 'Log out: ends this session on every process and clears the cookie', response: { 200: logoutResponse } } },
    async (request, reply) => {
      await endOwnSession(deps, await deps.sessions.verify(request.cookies[SESSION_COOKIE]));
      reply.clearCookie(SESSION_COOKIE, { path: cookieOptions.path, httpOnly: true, sameSite: 'lax', secure: cookieOptions.secure });
      return { success: true as const };
    },
  );

  app.get('/users/@me', { ...session, schema: { tags: ['accounts'], summary: 'The logged-in user', security, response: { 200: meResponse } } }, async (request) =>
    currentUser(deps, userOf(request).id),
  );

  app.post(
    '/users/@me/password',
    {
      ...session,
      schema: {
        tags: ['accounts'],
        summary: 'Change my password (the current one is required); every other session of the account ends',
        security,
        body: changePasswordBody,
        response: { 200: changePasswordResponse },
      },
    },
    async (request) => ({ success: true as const, ...(await changePassword(deps, userOf(request), request.body.currentPassword, request.body.newPassword)) }),
  );

  app.get(
    '/users/@me/sessions',
    { ...session, schema: { tags: ['accounts'], summary: 'My live sessions: device, address, last seen', security, response: { 200: sessionsResponse } } },
    async (request) => listSessions(deps, userOf(request)),
  );

  app.delete(
    '/users/@me/sessions',
    {
      ...session,
      schema: { tags: ['accounts'], summary: 'Sign out everywhere else: ends every session but this one', security, response: { 200: endedSessionsResponse } },
    },
    async (request) => ({ success: true as const, ...(await signOutOtherSessions(deps, userOf(request))) }),
  );

  app.delete(
    '/users/@me/sessions/:id',
    { ...session, schema: { tags: ['accounts'], summary: 'Sign one session out, at once on every process', security, params: sessionParams } },
    async (request, reply) => {
      await signOutSession(deps, userOf(request).id, request.params.id);
      return reply.status(204).send();
    },
  );
};
