/** One invalid field of a 422 VALIDATION_ERROR. */
export type FieldError = { field: string; message: string; code: string };

/**
 * A non-2xx answer of the Mailroom API, read from its error envelope
 * (`{ success: false, error: { code, message, statusCode, requestId, errors? }, timestamp }`) or
 * from the flat `{ error }` some create endpoints answer with.
 */
export class MailroomError extends Error {
  override name = 'MailroomError';
  /** The HTTP status (0 when the server could not be reached). */
  readonly status: number;
  /** The error code of the envelope (`VALIDATION_ERROR`, `RATE_LIMITED`, …), or `HTTP_<status>`. */
  readonly code: string;
  readonly requestId: string | undefined;
  /** The invalid fields of a 422. */
  readonly errors: readonly FieldError[];
  readonly details: Record<string, unknown> | undefined;
  readonly suggestion: string | undefined;

  /**
   * True when the server refused a repeated Idempotency-Key whose first request succeeded: the work
   * was done once (a retry after a lost answer lands here); its answer is not sent again.
   */
  get performed(): boolean {
    const original = this.details?.originalStatusCode;
    return this.code === 'IDEMPOTENCY_KEY_REUSED' && typeof original === 'number' && original >= 200 && original < 300;
  }

  constructor(init: { status: number; code: string; message: string; requestId?: string; errors?: FieldError[]; details?: Record<string, unknown>; suggestion?: string; cause?: unknown }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.errors = init.errors ?? [];
    this.details = init.details;
    this.suggestion = init.suggestion;
  }

  /** The error of an answer whose body was `body` (parsed JSON, text, or nothing). */
  static fromResponse(response: Response, body: unknown): MailroomError {
    const requestId = response.headers.get('x-request-id') ?? undefined;
    const envelope = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    if (typeof envelope === 'object' && envelope !== null) {
      const e = envelope as { code?: string; message?: string; requestId?: string; errors?: FieldError[]; details?: Record<string, unknown>; suggestion?: string };
      return new MailroomError({
        status: response.status,
        code: e.code ?? `HTTP_${response.status}`,
        message: e.message ?? response.statusText,
        requestId: e.requestId ?? requestId,
        errors: e.errors,
        details: e.details,
        suggestion: e.suggestion,
      });
    }
    const message = typeof envelope === 'string' ? envelope : typeof body === 'string' && body ? body : response.statusText || `HTTP ${response.status}`;
    return new MailroomError({ status: response.status, code: `HTTP_${response.status}`, message, requestId });
  }
}
