import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import pg from 'pg';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { PostgresDb } from '../db/postgres.ts';
import { AppError } from './errors.ts';

// api.md Limits: "1000 per minute per project"; a fixed 60-second window (docs/decisions).
const WINDOW_SECONDS = 60;

/**
 * The per-project request counter. On the embedded database there is one process, so memory is
 * exact; on PostgreSQL the counter lives in `rate_limits` (migration 0003) so the limit holds
 * across every API process. A project already over its limit is then refused from this process's
 * memory until its window ends, costing no query. If the database cannot be reached the counter
 * falls back to this process's memory rather than failing requests.
 *
 * Every request of a project increments the same row, so each commit waiting for its WAL flush
 * serialised them (1.4k req/s at 64 connections). The counter has its own small pool with
 * synchronous_commit off: a crash may forget the last few milliseconds of counts, which only
 * makes that one window slightly more generous.
 */
export function createRateLimiter(config: Config, db: Db): { limiter: RateLimiterAbstract; close: () => Promise<void> } {
  const points = config.rateLimitPerMinute;
  const memory = new RateLimiterMemory({ keyPrefix: '', points, duration: WINDOW_SECONDS });
  if (db.kind === 'pglite') return { limiter: memory, close: async () => {} };
  const pool = new pg.Pool({ connectionString: (db as PostgresDb).connectionString, max: 4, options: '-c synchronous_commit=off' });
  pool.on('error', () => {});
  const limiter = new RateLimiterPostgres({
    storeClient: pool,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: '',
    points,
    duration: WINDOW_SECONDS,
    inMemoryBlockOnConsumed: points,
    insuranceLimiter: memory,
  });
  return { limiter, close: () => pool.end() };
}

function setHeaders(reply: FastifyReply, limit: number, result: RateLimiterRes) {
  reply.header('ratelimit-limit', limit);
  reply.header('ratelimit-remaining', Math.max(result.remainingPoints, 0));
  reply.header('ratelimit-reset', Math.max(Math.ceil(result.msBeforeNext / 1000), 0));
}

/**
 * Contract §13: every key-authenticated request counts against its project; a dashboard session
 * does not. Runs after the auth hook, so a request refused there (401, 403) counts for no one.
 */
export const rateLimitPlugin = fp(async (app: FastifyInstance, deps: { config: Config; db: Db }) => {
  const { limiter, close } = createRateLimiter(deps.config, deps.db);
  app.addHook('onClose', close);
  const limit = deps.config.rateLimitPerMinute;

  app.addHook('onRequest', async (request, reply) => {
    const project = request.project;
    if (!project || project.via === 'session') return;
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(project.id);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      setHeaders(reply, limit, rejection);
      const retryAfter = Math.max(Math.ceil(rejection.msBeforeNext / 1000), 1);
      throw new AppError('RATE_LIMIT_EXCEEDED', {
        headers: { 'retry-after': String(retryAfter) },
        details: { limit, windowSeconds: WINDOW_SECONDS, retryAfter },
      });
    }
    setHeaders(reply, limit, result);
  });
});
