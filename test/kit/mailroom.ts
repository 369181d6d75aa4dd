import { createMailroomClient, type MailroomClient } from '../../packages/client/src/index.ts';
import type { Client } from './http.ts';

export type { MailroomClient } from '../../packages/client/src/index.ts';

/**
 * The typed `@mailroom/client` a developer uses, for a project's secret key: setup reads better
 * with typed paths and bodies. It never retries, so a 429 or a 5xx reaches the test as the
 * MailroomError it is. Tests of raw HTTP (status codes, headers, envelopes) keep `client()` of
 * test/kit/http.ts.
 */
export function projectClient(baseUrl: string, secretKey: string): MailroomClient {
  return createMailroomClient({ baseUrl, apiKey: secretKey, retries: 0 });
}

/** The typed client with the same server and credentials (key, or session cookie and project) as a raw kit client. */
export function typedClient(api: Client): MailroomClient {
  const { key, cookie, projectId, headers } = api.defaults;
  return createMailroomClient({
    baseUrl: api.baseUrl,
    apiKey: key,
    retries: 0,
    headers: {
      ...headers,
      ...(cookie ? { cookie, 'x-requested-with': 'fetch' } : {}),
      ...(projectId ? { 'x-project-id': projectId } : {}),
    },
  });
}
