import createClient, { type Client } from 'openapi-fetch';
import { MailroomError } from './errors.ts';
import { type RetryOptions, retryingFetch } from './retry.ts';
import type { components, paths } from './schema.ts';

export { MailroomError, type FieldError } from './errors.ts';
export { retryAfterMs, retryable, type RetryOptions } from './retry.ts';
export type { components, paths } from './schema.ts';

/**
 * The routes whose Idempotency-Key the server honours (a repeated key replays the first answer):
 * the client gives each call to them a key of its own, so a retry after a lost answer is safe.
 */
export const IDEMPOTENT_PATHS: readonly string[] = ['/v1/send', '/v1/track', '/events/track'];

export type MailroomClientOptions = RetryOptions & {
  /** The server, e.g. `https://mail.example.com` (no trailing path). */
  baseUrl: string;
  /** `sk_…` (secret key: every endpoint of its project) or `pk_…` (public key: POST /v1/track only). */
  apiKey?: string;
  /** Headers sent with every call. */
  headers?: Record<string, string>;
  /** Another fetch (a proxy agent, tests); default: the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
};

/** The typed client: `GET`, `POST`, `PUT`, `PATCH`, `DELETE` over the API's paths (openapi-fetch). */
export type MailroomClient = Client<paths>;

/**
 * A client of one Mailroom server. Every call is typed from the server's OpenAPI document; a
 * non-2xx answer rejects with a MailroomError; 429s, and 5xx or lost connections of calls that can
 * safely run again, are retried with backoff, waiting what Retry-After says.
 */
export function createMailroomClient(options: MailroomClientOptions): MailroomClient {
  const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}), ...options.headers },
    fetch: retryingFetch(base, options),
  });
  client.use({
    onRequest({ request, schemaPath }) {
      if (IDEMPOTENT_PATHS.includes(schemaPath) && request.method === 'POST' && !request.headers.has('idempotency-key')) {
        request.headers.set('idempotency-key', crypto.randomUUID());
      }
      return request;
    },
    async onResponse({ response }) {
      if (response.ok) return undefined;
      const text = await response.clone().text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: the text is the message
      }
      throw MailroomError.fromResponse(response, body);
    },
    onError({ error }) {
      if (error instanceof MailroomError) return error;
      return new MailroomError({ status: 0, code: 'NETWORK_ERROR', message: `The server could not be reached: ${(error as Error)?.message ?? error}`, cause: error });
    },
  });
  return client;
}

/** The request and response bodies of the API, by schema name (`Schemas['Email']`). */
export type Schemas = components extends { schemas: infer S } ? S : never;
