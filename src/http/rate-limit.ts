import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RequestCount } from '../auth/api-keys.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors.ts';

// the API reference (Limits): "1000 per minute per project"; a fixed 60-second window (docs/decisions).
export const RATE_LIMIT_WINDOW_SECONDS = 60;

function setHeaders(reply: FastifyReply, limit: number, usage: RequestCount) {
  reply.header('ratelimit-limit', limit);
  reply.header('ratelimit-remaining', Math.max(limit - usage.count, 0));
  reply.header('ratelimit-reset', Math.max(Math.ceil(usage.msLeft / 1000), 0));
}

/**
 * docs/decisions/idempotency-and-rate-limits.md: every key-authenticated request counts against its project; a dashboard session
 * does not. Runs after the auth hook, so a request refused there (401, 403) counts for no one.
 * On PostgreSQL the auth hook already counted the request in the same statement that checked its
 * key (auth/api-keys.ts), shared by every process; on the embedded database one process serves,
 * so an in-memory counter is exact.
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, deps: { config: Config; db: Db }) => {
  const limit = deps.config.rateLimitPerMinute;
  const memory = new RateLimiterMemory({ keyPrefix: '', points: limit, duration: RATE_LIMIT_WINDOW_SECONDS });

  async function countInMemory(projectId: string): Promise<RequestCount> {
    const result = await memory.consume(projectId).catch((rejection: unknown) => {
      if (rejection instanceof RateLimiterRes) return rejection;
      throw rejection;
    });
    return { count: result.consumedPoints, msLeft: result.msBeforeNext };
  }

  app.addHook('onRequest', async (request, reply) => {
    const project = request.project;
    if (!project || project.via === 'session') return;
    const usage = request.requestCount ?? (await countInMemory(project.id));
    setHeaders(reply, limit, usage);
    if (usage.count > limit) {
      const retryAfter = Math.max(Math.ceil(usage.msLeft / 1000), 1);
      throw new AppError('RATE_LIMIT_EXCEEDED', {
        headers: { 'retry-after': String(retryAfter) },
        details: { limit, windowSeconds: RATE_LIMIT_WINDOW_SECONDS, retryAfter },
      });
    }
  });
});
