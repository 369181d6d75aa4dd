export type ApiResponse<T = any> = { status: number; headers: Headers; body: T; text: string };

export type RequestOptions = {
  /** Sent as Authorization: Bearer <key>. */
  key?: string;
  /** A session cookie (`mailroom_session=…`). */
  cookie?: string;
  /** Sent as X-Project-Id with a session cookie. */
  projectId?: string;
  headers?: Record<string, string>;
  /** A raw body sent as is (for malformed JSON tests); otherwise `body` is JSON-encoded. */
  rawBody?: string | Buffer | FormData;
};

/** A small HTTP client for tests against a real server. */
export function client(baseUrl: string, defaults: RequestOptions = {}) {
  async function request<T = any>(method: string, path: string, body?: unknown, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const o = { ...defaults, ...options, headers: { ...defaults.headers, ...options.headers } };
    const headers: Record<string, string> = { ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.cookie) {
      headers.cookie = o.cookie;
      // As the dashboard does: session requests that change state need a custom header (auth.ts).
      if (!('x-requested-with' in headers)) headers['x-requested-with'] = 'fetch';
    }
    if (o.projectId) headers['x-project-id'] = o.projectId;
    let payload: string | Buffer | FormData | undefined;
    if (o.rawBody !== undefined) payload = o.rawBody;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(baseUrl + path, { method, headers, body: payload as any, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }
  return {
    /** The server and the credentials every request sends (test/kit/mailroom.ts builds a typed client from them). */
    baseUrl,
    defaults,
    request,
    get: <T = any>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
    post: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body, options),
    put: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, body, options),
    patch: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, body, options),
    delete: <T = any>(path: string, body?: unknown, options?: RequestOptions) => request<T>('DELETE', path, body, options),
    with: (more: RequestOptions) => client(baseUrl, { ...defaults, ...more, headers: { ...defaults.headers, ...more.headers } }),
  };
}

export type Client = ReturnType<typeof client>;
