import { createMailroomClient } from '@mailroom/client';
import { ApiError } from './errors.ts';

let currentProjectId: string | undefined;

/** The project every project-scoped call names (X-Project-Id); set by the project layout. */
export function setCurrentProject(projectId: string | undefined) {
  currentProjectId = projectId;
}

/**
 * The typed API client, the same `@mailroom/client` developers use (docs/architecture.md): same
 * origin with the session cookie, X-Project-Id when a project is open, and X-Requested-With on every
 * call (the server refuses a cookie-authenticated state change without a custom header, so a
 * cross-site form cannot forge one). It never retries: TanStack Query retries failed reads, and a
 * form's POST runs once, when the user submits it.
 */
export const api = createMailroomClient({
  baseUrl: '',
  retries: 0,
  fetch: (request) => globalThis.fetch(request, { credentials: 'same-origin' }),
});

api.use({
  onRequest({ request }) {
    request.headers.set('x-requested-with', 'fetch');
    if (currentProjectId && !request.headers.has('x-project-id')) request.headers.set('x-project-id', currentProjectId);
    return request;
  },
});

type FetchResult<T> = { data?: T; error?: unknown; response: Response };

/** The data of a call, or an ApiError carrying the server's message and field errors. */
export async function call<T>(pending: Promise<FetchResult<T>>): Promise<NonNullable<T>> {
  let result: FetchResult<T>;
  try {
    result = await pending;
  } catch (cause) {
    throw ApiError.fromClient(cause);
  }
  return result.data as NonNullable<T>;
}
