import { type FieldError, plainFieldMessage } from '../ui/fieldErrors.ts';

/** One field the server rejected (the API reference (Errors) `errors[]`). */
export type { FieldError };

/** An API failure in a form a page can show next to what caused it. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fieldErrors: FieldError[] = [],
    readonly suggestion?: string,
    /** The envelope's `details` (e.g. `{ field, line, column }` of a template syntax error). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static from(response: Response, body: unknown): ApiError {
    // The envelope { success: false, error: { code, message, errors?, suggestion? } }, or the flat
    // { error: "…" } some creates answer with (the API reference).
    const envelope = body as { error?: unknown } | undefined;
    if (envelope && typeof envelope.error === 'string') return new ApiError(response.status, 'BAD_REQUEST', envelope.error);
    const error = envelope?.error as { code?: string; message?: string; errors?: FieldError[]; suggestion?: string; details?: Record<string, unknown> } | undefined;
    if (error?.message) return new ApiError(response.status, error.code ?? 'ERROR', error.message, error.errors ?? [], error.suggestion, error.details);
    return new ApiError(response.status, `HTTP_${response.status}`, `The server answered ${response.status} ${response.statusText}.`.replace(' .', '.'));
  }

  /** The message of the field named `name` (or nested under it) in plain words, if the server rejected it. */
  field(name: string): string | undefined {
    const found = this.fieldErrors.find((e) => e.field === name || e.field.startsWith(`${name}.`));
    return found ? plainFieldMessage(found) : undefined;
  }
}

export function asApiError(error: unknown): ApiError | undefined {
  if (!error) return undefined;
  if (error instanceof ApiError) return error;
  return new ApiError(0, 'ERROR', error instanceof Error ? error.message : String(error));
}
