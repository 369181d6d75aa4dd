/** What the client may do again after a failed attempt (docs in the package's README). */
export type RetryOptions = {
  /** Attempts after the first; 0 turns retries off. Default 3. */
  retries?: number;
  /** The longest wait before an attempt, Retry-After included. Default 30 000 ms. */
  maxDelayMs?: number;
  /** Told before each retry (logging, tests). */
  onRetry?: (retry: { attempt: number; delayMs: number; status: number | undefined; method: string; url: string }) => void;
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * Whether an answer (or a network error, `status` undefined) may be tried again. A 429 was refused
 * before the request ran, so it always may; a 5xx or a lost connection only when repeating cannot
 * do the work twice: an idempotent method, or a request whose Idempotency-Key the server honours.
 */
export function retryable(status: number | undefined, method: string, hasIdempotencyKey: boolean): boolean {
  if (status === 429) return true;
  if (status !== undefined && status < 500) return false;
  return SAFE_METHODS.has(method) || hasIdempotencyKey;
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date, RFC 9110 §10.2.3), or undefined. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Without Retry-After: 0.5 s, 1 s, 2 s, … with ±25 % jitter. */
export function backoffMs(attempt: number): number {
  return Math.round(500 * 2 ** (attempt - 1) * (0.75 + Math.random() * 0.5));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fetch that tries a request again as RetryOptions allow; the request's body is kept for each attempt. */
export function retryingFetch(base: (request: Request) => Promise<Response>, options: RetryOptions): (request: Request) => Promise<Response> {
  const retries = options.retries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  return async (request) => {
    const keyed = request.headers.has('idempotency-key');
    for (let attempt = 1; ; attempt++) {
      const sending = attempt <= retries ? request.clone() : request;
      let response: Response | undefined;
      try {
        response = await base(sending);
      } catch (error) {
        if (attempt > retries || !retryable(undefined, request.method, keyed)) throw error;
      }
      if (response && (attempt > retries || !retryable(response.status, request.method, keyed))) return response;
      const delayMs = Math.min(maxDelayMs, (response && retryAfterMs(response.headers.get('retry-after'))) ?? backoffMs(attempt));
      options.onRetry?.({ attempt, delayMs, status: response?.status, method: request.method, url: request.url });
      await response?.body?.cancel();
      await sleep(delayMs);
    }
  };
}
