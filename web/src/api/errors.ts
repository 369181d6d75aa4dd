import { MailroomError } from '@mailroom/client';
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

  /**
   * The dashboard's form of a failed `@mailroom/client` call: the MailroomError the client rejects
   * with (read from the envelope, or from the flat `{ error: "…" }` some creates answer with), or a
   * connection the server never answered.
   */
  static fromClient(error: unknown): ApiError {
    if (!(error instanceof MailroomError) || error.status === 0) {
      return new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached. Check your connection and try again.');
    }
    if (error.code === `HTTP_${error.status}`) {
      // No envelope: a flat error's words, or, for a page a proxy answered with, just the status.
      const words = error.message && !/[<\n]/.test(error.message) && error.message !== `HTTP ${error.status}` ? error.message : undefined;
      return new ApiError(error.status, error.code, words ?? `The server answered ${error.status}.`);
    }
    return new ApiError(error.status, error.code, error.message, [...error.errors], error.suggestion, error.details);
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
