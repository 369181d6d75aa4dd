import { randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject, serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { requestScope } from './db/db.ts';
import type { Deps } from './deps.ts';
import { authPlugin } from './http/auth.ts';
import { clientErrorHandler, errorHandler, frameworkErrorHandler, notFoundHandler } from './http/error-handler.ts';
import { idempotencyPlugin } from './http/idempotency.ts';
import { installInputBoundary } from './http/input.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { rateLimitPlugin } from './http/rate-limit.ts';
import { zodValidatorCompiler } from './http/validation.ts';
import { CAPABILITIES } from './modules.ts';
import { opsRoutes } from './ops/ops.routes.ts';

/**
 * Builds the HTTP application. A worker-only process (ROLE=worker) serves just the operations
 * routes, so it can still be health-checked.
 */
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
  app.setErrorHandler(errorHandler);
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

  await registerSecurityHeaders(app as unknown as FastifyInstance, { https: deps.config.publicUrl.startsWith('https:') });
  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      info: { title: 'Mailroom API', version: '1.0.0', description: 'Transactional email, events, contacts, campaigns, segments and workflows.' },
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
  if (options.api) {
    for (const capability of CAPABILITIES) if (capability.routes) await app.register(capability.routes, { ...deps, prefix: capability.prefix });
  }
  return app as unknown as FastifyInstance;
}
