import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { PACKAGE_ROOT } from '../paths.ts';

/** Where `npm run build` (scripts/build-web.mjs) writes the dashboard. */
export const DASHBOARD_DIR = join(PACKAGE_ROOT, 'dist', 'web');

/**
 * The dashboard: its hashed assets under /assets/ (precompressed, cached for a year), and index.html at `/` and at every GET that no
 * API route answers and that a browser navigates to (Accept: text/html), so the app's own routes
 * (/login, /p/{projectId}/contacts…) load the app. Any other unknown path keeps the API's JSON 404.
 * Mounted with the API routes only, so a worker-only process serves no dashboard.
 */
export const dashboardRoutes: FastifyPluginAsync<Deps> = async (app, deps) => {
  const indexPath = join(DASHBOARD_DIR, 'index.html');
  if (!existsSync(indexPath)) {
    deps.log.warn({ dir: DASHBOARD_DIR }, 'dashboard not built (npm run build): / is not served');
    return;
  }
  const indexHtml = readFileSync(indexPath);

  await app.register(fastifyStatic, {
    root: join(DASHBOARD_DIR, 'assets'),
    prefix: '/assets/',
    // File names carry their content hash: a changed file has a new name.
    immutable: true,
    maxAge: '365d',
    index: false,
    // The build writes .br and .gz beside each text asset (scripts/build-web.mjs): sent as they
    // are to a browser that accepts them (with Vary: Accept-Encoding), never compressed per request.
    preCompressed: true,
  });

  const sendIndex = (_request: FastifyRequest, reply: import('fastify').FastifyReply) => reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(indexHtml);

  app.get('/', { schema: { hide: true } }, sendIndex);
  app.get('/*', { schema: { hide: true } }, async (request, reply) => {
    if (!(request.headers.accept ?? '').includes('text/html')) return reply.callNotFound();
    return sendIndex(request, reply);
  });
};
