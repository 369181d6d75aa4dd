import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import type { Metrics } from './metrics.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether the request carries `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time). */
export function hasMetricsToken(headers: IncomingHttpHeaders, token: string): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), digest(token));
}

/**
 * GET /metrics on the API's port, only when METRICS_TOKEN is set and METRICS_PORT is not
 * (docs/metrics.md): never public. Outside the OpenAPI document, like /health: it is for
 * Prometheus, not for API clients, and exists only where the operator turned it on.
 */
export const metricsRoutes: FastifyPluginAsyncZod<Deps> = async (app, deps) => {
  const { token, port } = deps.config.metrics;
  if (!token || port !== undefined) return;
  app.get('/metrics', { schema: { hide: true }, config: { auth: 'none' } }, async (request, reply) => {
    if (!hasMetricsToken(request.headers, token)) {
      throw new AppError('UNAUTHORIZED', { message: 'Send Authorization: Bearer <METRICS_TOKEN>.', headers: { 'www-authenticate': 'Bearer realm="metrics"' } });
    }
    return reply.type(deps.metrics.contentType).send(await deps.metrics.scrape());
  });
};

/** Times every answered request by its route pattern (`/contacts/:id`), so the labels stay bounded. */
export const httpMetrics = fp(async (app: FastifyInstance, metrics: Metrics) => {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
  });
});

/**
 * The listener of METRICS_PORT: GET /metrics and nothing else, for a port that only the monitoring
 * network reaches; with METRICS_TOKEN set as well, the token is required there too.
 */
export async function startMetricsServer(deps: Deps): Promise<{ url: string; close: () => Promise<void> } | undefined> {
  const { token, port } = deps.config.metrics;
  if (port === undefined) return undefined;
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: this port serves GET /metrics only.\n');
      return;
    }
    if (token && !hasMetricsToken(request.headers, token)) {
      response.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' }).end('Send Authorization: Bearer <METRICS_TOKEN>.\n');
      return;
    }
    deps.metrics.scrape().then(
      (text) => response.writeHead(200, { 'content-type': deps.metrics.contentType }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        deps.log.error({ err: error }, 'metrics could not be collected');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected.\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, deps.config.host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = deps.config.host === '0.0.0.0' || deps.config.host === '::' ? '127.0.0.1' : deps.config.host;
  return {
    url: `http://${host}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
