import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { type ApiKeyResolver, type KeyScope, type KeyType, keyTypeOf, type RequestCount } from '../auth/api-keys.ts';
import { findLiveSession, findMembership, hasTwoFactor, type Role, touchSession } from '../auth/auth.queries.ts';
import { SESSION_COOKIE, type SessionTokens } from '../auth/sessions.ts';
import type { Db } from '../db/index.ts';
import { AppError } from '../errors.ts';

/**
 * How a route authenticates (route `config.auth`):
 * - `public`: the public key only (POST /v1/track; the API reference (Authentication), the endpoint-level rule).
 * - `secret`: the secret key only (/v1/send, /v1/verify).
 * - `project`: the secret key, or a dashboard session naming the project in X-Project-Id
 *   (docs/decisions/accounts.md) — every project-scoped resource endpoint.
 * - `sessionProject`: a session with X-Project-Id only (dashboard aliases such as /events/track).
 * - `session`: a logged-in user (/users/@me…).
 * - `none`: no authentication (the default).
 */
export type AuthMode = 'none' | 'public' | 'secret' | 'project' | 'sessionProject' | 'session';

export type ProjectContext = {
  id: string;
  /** Known without a query when the project came from an API key (the key resolver holds it). */
  name?: string;
  /** How the caller proved access: with a key of this type, or as a member with a session. */
  via: KeyType | 'session';
  role?: Role;
  /** A key's scope (docs/security.md); sessions and the project's own keys have `full`. */
  scope?: KeyScope;
  /** A named key's sender domains: empty or undefined, any verified domain of the project. */
  senderDomains?: string[];
  /** A named key's id (api_keys). */
  keyId?: string;
};

/** The logged-in user and the session record the request came with. */
export type UserContext = { id: string; sessionId: string };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
  interface FastifyRequest {
    project: ProjectContext | undefined;
    user: UserContext | undefined;
    /** On PostgreSQL, this request's rate-limit count, taken while its key was checked. */
    requestCount: RequestCount | undefined;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const SESSION_SEEN_INTERVAL_MS = 60_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type AuthDeps = { db: Db; keys: ApiKeyResolver; sessions: SessionTokens };

/** The project of a key-authenticated request, for handlers that require one. */
export function projectOf(request: FastifyRequest): ProjectContext {
  if (!request.project) throw new AppError('INVALID_API_KEY');
  return request.project;
}

export function userOf(request: FastifyRequest): UserContext {
  if (!request.user) throw new AppError('UNAUTHORIZED');
  return request.user;
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : '';
}

export const authPlugin = fp(async (app: FastifyInstance, deps: AuthDeps) => {
  app.decorateRequest('project', undefined);
  app.decorateRequest('user', undefined);
  app.decorateRequest('requestCount', undefined);

  async function authenticateKey(request: FastifyRequest, token: string | undefined, allowed: KeyType, mode: AuthMode) {
    if (!token) {
      throw new AppError('INVALID_API_KEY', { message: 'Missing API key: send Authorization: Bearer <key>.' });
    }
    // The prefix tells the key's type: a key of the wrong type is refused before any lookup, so it
    // counts against no project's rate limit.
    const keyType = keyTypeOf(token);
    if (keyType && keyType !== allowed) {
      throw new AppError('INVALID_API_KEY', {
        message: allowed === 'public' ? 'This endpoint takes the public key (pk_…).' : 'This endpoint takes the secret key (sk_…).',
        suggestion: allowed === 'public' ? 'Use your project public key; it is safe in client-side code.' : 'Use your project secret key from a server.',
      });
    }
    const resolved = await deps.keys.resolve(token);
    if (!resolved) throw new AppError('INVALID_API_KEY');
    if (resolved.disabled) {
      throw new AppError('PROJECT_DISABLED', { details: resolved.disabledReason ? { reason: resolved.disabledReason } : undefined });
    }
    // A sending key opens the sending endpoints only (`secret` and `public` modes); every other
    // project endpoint answers 403 with its own code, so the caller knows a key of wider scope would do.
    if (resolved.scope === 'sending' && mode === 'project') {
      throw new AppError('API_KEY_SCOPE_INSUFFICIENT', { suggestion: 'Use a key with the full scope, or the dashboard.' });
    }
    request.project = {
      id: resolved.projectId,
      name: resolved.projectName,
      via: resolved.keyType,
      scope: resolved.scope,
      senderDomains: resolved.senderDomains,
      keyId: resolved.keyId,
    };
    request.requestCount = resolved.usage;
  }

  async function authenticateSession(request: FastifyRequest) {
    const session = await deps.sessions.verify(request.cookies[SESSION_COOKIE]);
    // The token is genuine; its session record says whether it still lives (ended by logging out,
    // from the Sessions list or by a password change: docs/security.md).
    const live = session && UUID.test(session.userId) && UUID.test(session.sessionId) ? await findLiveSession(deps.db, session.sessionId, session.userId) : undefined;
    if (!session || !live) throw new AppError('UNAUTHORIZED', { message: 'Log in first.' });
    // Last seen is written at most once a minute per session, so most requests only read.
    if (Date.now() - live.lastSeenAt.getTime() > SESSION_SEEN_INTERVAL_MS) await touchSession(deps.db, session.sessionId, request.ip);
    // A cross-site form can send the cookie but no custom header (that needs a CORS preflight,
    // which this server never grants for session routes): a state change must carry one.
    if (!SAFE_METHODS.has(request.method) && !request.headers['x-project-id'] && !request.headers['x-requested-with']) {
      throw new AppError('FORBIDDEN', {
        message: 'A request authenticated by the session cookie that changes state must send the X-Project-Id or X-Requested-With header.',
        suggestion: 'Send X-Requested-With: fetch (any value) with the request.',
      });
    }
    request.user = { id: session.userId, sessionId: session.sessionId };
  }

  async function authenticateMember(request: FastifyRequest) {
    await authenticateSession(request);
    const projectId = request.headers['x-project-id'];
    if (typeof projectId !== 'string' || !UUID.test(projectId)) {
      throw new AppError('BAD_REQUEST', { message: 'Name the project in the X-Project-Id header.' });
    }
    const membership = await findMembership(deps.db, projectId, request.user!.id);
    if (!membership) throw new AppError('FORBIDDEN', { message: 'You are not a member of this project.' });
    if (membership.disabled) {
      throw new AppError('PROJECT_DISABLED', { details: membership.disabledReason ? { reason: membership.disabledReason } : undefined });
    }
    // A project that requires two-factor sign-in refuses members without it (API keys are not affected).
    if (membership.requireTwoFactor && !(await hasTwoFactor(deps.db, request.user!.id))) throw new AppError('TWO_FACTOR_REQUIRED');
    request.project = { id: projectId, via: 'session', role: membership.role, scope: 'full' };
  }

  app.addHook('onRequest', async (request) => {
    const mode = request.routeOptions.config.auth ?? 'none';
    switch (mode) {
      case 'none':
        return;
      case 'public':
        return authenticateKey(request, bearerToken(request), 'public', mode);
      case 'secret':
        return authenticateKey(request, bearerToken(request), 'secret', mode);
      case 'project': {
        const token = bearerToken(request);
        if (token === undefined && request.cookies[SESSION_COOKIE]) return authenticateMember(request);
        return authenticateKey(request, token, 'secret', mode);
      }
      case 'sessionProject':
        return authenticateMember(request);
      case 'session':
        return authenticateSession(request);
      default: {
        const unreachable: never = mode;
        throw new Error(`Unknown auth mode ${unreachable}`);
      }
    }
  });
});
