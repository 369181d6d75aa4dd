import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { userOf } from '../http/auth.ts';
import { acceptedResponse, oauthConfigResponse, requestResetBody, resetPasswordBody, verifiedResponse, verifyEmailBody } from './email-flows.schemas.ts';
import { requestPasswordReset, requestVerification, resetPassword, verifyEmail } from './email-flows.service.ts';

const tags = ['accounts'];

/** the API reference auth endpoints: email verification, password reset (mailed tokens) and OAuth configuration. */
export const emailFlowsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  app.post(
    '/auth/request-verification',
    {
      config: { auth: 'session' },
      schema: { tags, security: [{ session: [] }], summary: 'Mail a link confirming my address (nothing is sent once verified)', response: { 202: acceptedResponse } },
    },
    async (request, reply) => {
      await requestVerification(deps, userOf(request).id);
      return reply.status(202).send({ success: true as const });
    },
  );

  app.post(
    '/auth/verify-email',
    { schema: { tags, summary: 'Confirm an address with the mailed token (single use, 48 hours)', body: verifyEmailBody, response: { 200: verifiedResponse } } },
    async (request) => verifyEmail(deps, request.body.token),
  );

  app.post(
    '/auth/request-password-reset',
    {
      schema: { tags, summary: 'Mail a password-reset link (same answer whether or not an account has the address)', body: requestResetBody, response: { 202: acceptedResponse } },
    },
    async (request, reply) => {
      await requestPasswordReset(deps, request.body.email);
      return reply.status(202).send({ success: true as const });
    },
  );

  app.post(
    '/auth/reset-password',
    { schema: { tags, summary: 'Set a new password with the mailed token (single use, 1 hour)', body: resetPasswordBody, response: { 200: acceptedResponse } } },
    async (request) => {
      await resetPassword(deps, request.body.token, request.body.password);
      return { success: true as const };
    },
  );

  app.get('/auth/oauth-config', { schema: { tags, summary: 'Configured OAuth providers', response: { 200: oauthConfigResponse } } }, async () => ({ providers: [] }));
};
