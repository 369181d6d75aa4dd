import createClient from 'openapi-fetch';
import { ApiError } from './errors.ts';
import type { paths } from './schema';

let currentProjectId: string | undefined;

/** The project every project-scoped call names (X-Project-Id); set by the project layout. */
export function setCurrentProject(projectId: string | undefined) {
  currentProjectId = projectId;
}

/**
 * The typed API client: same origin, the session cookie, X-Project-Id when a project is open, and
 * X-Requested-With on every call (the server refuses a cookie-authenticated state change without a
 * custom header, so a cross-site form cannot forge one).
 */
export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

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
  } catch (_cause) {
    throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached. Check your connection and try again.');
  }
  if (!result.response.ok) throw ApiError.from(result.response, result.error);
  return result.data as NonNullable<T>;
}
