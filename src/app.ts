import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { MAX_DEPTH, MAX_FILTERS, MAX_VALUE_LENGTH } from './conditions/validate.ts';
import { requestScope } from './db/db.ts';
import type { Deps } from './deps.ts';
import { authPlugin } from './http/auth.ts';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, notFoundHandler } from './http/error-handler.ts';
import { idempotencyPlugin } from './http/idempotency.ts';
import { installInputBoundary, MAX_JSON_DEPTH, MAX_PARAMETER_LENGTH, MAX_REPORTED_ISSUES } from './http/input.ts';
import { rateLimitPlugin } from './http/rate-limit.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { zodValidatorCompiler } from './http/validation.ts';
import { httpMetrics, metricsRoutes } from './metrics/metrics.routes.ts';
import { CAPABILITIES } from './modules.ts';
import { opsRoutes } from './ops/ops.routes.ts';

/**
 * Builds the HTTP application. A worker-only process (ROLE=worker) serves just the operations
 * routes, so it can still be health-checked.
 */

/** The limits every route enforces (src/http/input.ts, src/conditions/validate.ts), said where clients read the API. */
const API_DESCRIPTION = [
  'Transactional email, events, contacts, campaigns, segments and workflows.',
  '',
  'Limits on every route: a NUL or an unpaired UTF-16 surrogate in any string of a body, query or path is a 422 naming the field;',
  `JSON nested deeper than ${MAX_JSON_DEPTH} levels is a 400; query and path values are at most ${MAX_PARAMETER_LENGTH} characters; bodies at most 1 MB;`,
  `a cut multipart body is a 400; a validation answer lists at most ${MAX_REPORTED_ISSUES} issues.`,
  `Condition trees: at most ${MAX_FILTERS} filters and ${MAX_DEPTH} levels, filter values of at most ${MAX_VALUE_LENGTH} characters.`,
  'On PostgreSQL a statement of an API request is cancelled after 10 s (503).',
].join('\n');

export async function buildApp(deps: Deps, options: { api: boolean }): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.log,
    genReqId: () => `req_${randomUUID().replaceAll('-', '')}`,
    bodyLimit: 1024 * 1024,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(zodValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.setErrorHandler(errorHandler(deps.registry.constraintErrors));
  app.setNotFoundHandler(notFoundHandler);
  installInputBoundary(app as unknown as FastifyInstance);
  // The rest of the request runs in requestScope (its PostgreSQL statements are time-limited).
  app.addHook('onRequest', (_request, _reply, done) => requestScope.run(true, done));
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 500) request.log.warn({ statusCode: reply.statusCode, url: request.url }, 'request answered 5xx');
  });

  await app.register(httpMetrics, deps.metrics);
  await registerSecurityHeaders(app as unknown as FastifyInstance, { https: deps.config.publicUrl.startsWith('https:') });
  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      info: { title: 'Mailroom API', version: '1.0.0', description: API_DESCRIPTION },
      servers: [{ url: deps.config.publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'sk_… secret key, or pk_… public key for /v1/track' },
          session: { type: 'apiKey', in: 'cookie', name: 'mailroom_session' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  await app.register(authPlugin, deps);
  await app.register(rateLimitPlugin, deps);
  await app.register(idempotencyPlugin, deps);
  await app.register(opsRoutes, deps);
  await app.register(metricsRoutes, deps);
  if (options.api) {
    for (const capability of CAPABILITIES) if (capability.routes) await app.register(capability.routes, deps);
  }
  return app as unknown as FastifyInstance;
}
