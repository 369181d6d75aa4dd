import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors.ts';
import type { AuthMode } from './auth.ts';
import { claimIdempotencyKey, findIdempotencyKey, type IdempotencyRecord, recordIdempotencyStatus, releaseIdempotencyKey } from './idempotency.queries.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Honour an `Idempotency-Key` header on this route (the API reference (Limits); docs/decisions/idempotency-and-rate-limits.md). */
    idempotent?: boolean;
  }
  interface FastifyRequest {
    idempotencyClaim: { projectId: string; key: string } | undefined;
  }
}

const HEADER = 'idempotency-key';
// the API reference (Limits): 1 to 255 printable ASCII characters.
const VALID_KEY = /^[\x20-\x7E]{1,255}$/;
// Claiming can lose to a request that is released (4xx) or expires between our two statements;
// trying again then claims it. More rounds than this means constant churn on one key.
const CLAIM_ATTEMPTS = 5;

// Keys are scoped to the project, so only routes that authenticate one can honour them.
const PROJECT_AUTH = new Set<AuthMode>(['public', 'secret', 'project', 'sessionProject']);

type IdempotencyDeps = { config: Config; db: Db };

function headerValue(request: FastifyRequest): string | undefined {
  const value = request.headers[HEADER];
  return Array.isArray(value) ? value.join(', ') : value;
}

function reused(key: string, original: IdempotencyRecord): AppError {
  return new AppError('IDEMPOTENCY_KEY_REUSED', {
    details: {
      key,
      originalRequest: { method: original.method, path: original.path },
      originalRequestAt: new Date(original.createdAt).toISOString(),
      originalStatusCode: original.statusCode,
    },
    suggestion: 'Use a new Idempotency-Key for a new request.',
  });
}

function appendHook<T>(existing: T | T[] | undefined, hook: T): T[] {
  if (existing === undefined) return [hook];
  return Array.isArray(existing) ? [...existing, hook] : [existing, hook];
}

/**
 * The Idempotency-Key mechanism, for any route declaring `config: { idempotent: true }`:
 * - preValidation: a malformed header is a 400 before the body is looked at;
 * - preHandler (after auth and body validation, i.e. once the request is accepted): the key is
 *   claimed for the project in one atomic upsert, or the request is refused with a 409;
 * - onSend (before the client sees the answer, so an immediate retry sees the outcome): a 4xx
 *   releases the key, a 2xx or 5xx keeps it with its status until the TTL ends.
 */
export const idempotencyPlugin = fp(async (app: FastifyInstance, deps: IdempotencyDeps) => {
  app.decorateRequest('idempotencyClaim', undefined);

  async function checkHeader(request: FastifyRequest) {
    const key = headerValue(request);
    if (key !== undefined && !VALID_KEY.test(key)) throw new AppError('INVALID_IDEMPOTENCY_KEY');
  }

  async function claim(request: FastifyRequest) {
    const key = headerValue(request);
    if (key === undefined) return;
    const projectId = request.project?.id;
    if (!projectId) throw new AppError('INVALID_API_KEY');
    const path = request.url.split('?', 1)[0]!;
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
      const claimed = await claimIdempotencyKey(deps.db, { projectId, key, method: request.method, path, ttlHours: deps.config.idempotencyTtlHours });
      if (claimed) {
        request.idempotencyClaim = { projectId, key };
        return;
      }
      const original = await findIdempotencyKey(deps.db, projectId, key);
      if (original) throw reused(key, original);
    }
    throw new AppError('CONFLICT', { message: 'Another request with this Idempotency-Key is being processed; retry shortly.' });
  }

  async function settle(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const claimed = request.idempotencyClaim;
    if (!claimed) return payload;
    request.idempotencyClaim = undefined;
    const status = reply.statusCode;
    try {
      if (status >= 400 && status < 500) await releaseIdempotencyKey(deps.db, claimed.projectId, claimed.key);
      else await recordIdempotencyStatus(deps.db, claimed.projectId, claimed.key, status);
    } catch (error) {
      // The answer itself stands; the key then stays "in progress" until its TTL ends.
      request.log.error({ err: error, idempotencyKey: claimed.key }, 'could not settle an Idempotency-Key');
    }
    return payload;
  }

  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.config?.idempotent) return;
    if (!PROJECT_AUTH.has(route.config.auth ?? 'none')) throw new Error(`${route.method} ${route.url}: an idempotent route must authenticate a project`);
    route.preValidation = appendHook(route.preValidation, checkHeader);
    route.preHandler = appendHook(route.preHandler, claim);
    route.onSend = appendHook(route.onSend, settle);
  });
});
