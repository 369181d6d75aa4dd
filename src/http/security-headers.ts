import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Paths browsers may call from any origin: the public-key endpoint, meant for client-side code. */
export const CORS_PATHS = new Set(['/v1/track']);

/** Routes whose answers other sites embed (the open pixel, uploaded images in mail). */
const EMBEDDED_ROUTES = new Set(['/t/o/:token', '/uploads/:file']);

const pathOf = (request: FastifyRequest) => request.url.split('?')[0]!.replace(/\/+$/, '') || '/';

/**
 * Security headers and CORS for every answer:
 * - helmet: nosniff, a CSP for HTML (same-origin scripts and styles, inline styles for the
 *   component kits of /docs and the dashboard, images also from https: and data:, no framing),
 *   X-Frame-Options DENY, Referrer-Policy no-referrer, HSTS only when PUBLIC_URL is https;
 * - CORS only on CORS_PATHS (any origin, no credentials: the public key travels in the
 *   Authorization header); every other route sends no Access-Control-Allow-* at all, so browsers
 *   refuse cross-origin calls to it;
 * - `Cache-Control: no-store` on every answer that did not choose its own caching (API answers
 *   carry keys, secrets and personal data; no shared cache may keep them).
 */
export async function registerSecurityHeaders(app: FastifyInstance, options: { https: boolean }): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        baseUri: ["'self'"],
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'https:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        ...(options.https ? { upgradeInsecureRequests: [] } : {}),
      },
    },
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: options.https ? { maxAge: 31_536_000, includeSubDomains: false } : false,
    crossOriginResourcePolicy: { policy: 'same-origin' },
  });

  await app.register(cors, {
    // Evaluated per request: CORS_PATHS get `*`, everything else no CORS headers (and a preflight
    // to it is answered without them, which browsers treat as a refusal).
    delegator: (request, callback) => {
      if (!CORS_PATHS.has(pathOf(request as FastifyRequest))) return callback(null, { origin: false });
      callback(null, {
        origin: '*',
        credentials: false,
        methods: ['POST'],
        allowedHeaders: ['authorization', 'content-type', 'idempotency-key'],
        exposedHeaders: ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after', 'x-request-id'],
        maxAge: 86_400,
      });
    },
  });

  app.addHook('onSend', async (request, reply) => {
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    if (EMBEDDED_ROUTES.has(request.routeOptions.url ?? '')) reply.header('cross-origin-resource-policy', 'cross-origin');
  });
}
