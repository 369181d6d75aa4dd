/**
 * The error registry: every error code the API can answer with, its HTTP status and default
 * message. Services throw `AppError`s; one handler (error-handler.ts) writes the envelope.
 */
export const ERRORS = {
  BAD_REQUEST: { status: 400, message: 'The request is malformed.' },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  TEMPLATE_SYNTAX_ERROR: { status: 400, message: 'The template has a syntax error.' },
  TEMPLATE_RENDER_ERROR: { status: 400, message: 'The template could not be rendered.' },
  CAMPAIGN_STATE_INVALID: { status: 400, message: "The campaign's status does not allow this." },
  CAMPAIGN_NO_RECIPIENTS: { status: 400, message: "The campaign's audience has no eligible recipient." },
  INVALID_TRANSITION: { status: 400, message: 'The transition breaks a rule of the workflow graph.' },
  WORKFLOW_DISABLED: { status: 400, message: 'The workflow is disabled.' },
  EXECUTION_NOT_ACTIVE: { status: 400, message: 'Only a RUNNING or WAITING execution can be cancelled.' },
  INVALID_IDEMPOTENCY_KEY: { status: 400, message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.' },
  INVALID_TOKEN: { status: 400, message: 'The token is invalid, expired or already used.' },
  UNAUTHORIZED: { status: 401, message: 'Authentication is required.' },
  INVALID_API_KEY: { status: 401, message: 'The API key is missing, unknown or not valid for this endpoint.' },
  INVALID_CREDENTIALS: { status: 401, message: 'The email or password is incorrect.' },
  INVALID_TOTP_CODE: { status: 401, message: 'The two-factor code or recovery code is incorrect.' },
  INVALID_TOTP_CHALLENGE: { status: 401, message: 'The two-factor step has expired or is not valid: log in again.' },
  FORBIDDEN: { status: 403, message: 'You do not have permission to do this.' },
  TWO_FACTOR_REQUIRED: { status: 403, message: 'This project requires two-factor sign-in: set it up on your account page, then try again.' },
  PROJECT_DISABLED: { status: 403, message: 'This project is disabled.' },
  API_KEY_SCOPE_INSUFFICIENT: { status: 403, message: "This API key's scope does not allow this endpoint: a sending key may call /v1/send, /v1/track and /v1/verify only." },
  SENDER_DOMAIN_NOT_ALLOWED_FOR_KEY: { status: 403, message: 'This API key may not send from this sender domain.' },
  SIGNUP_DISABLED: { status: 403, message: 'Sign-up is disabled on this server.' },
  SENDER_DOMAIN_NOT_VERIFIED: { status: 403, message: 'The sender domain is not verified in this project.' },
  BILLING_LIMIT_EXCEEDED: { status: 403, message: "This would exceed the project's monthly billing limit for this category." },
  INVALID_SIGNATURE: { status: 403, message: 'The signature of this notification could not be verified.' },
  NOT_FOUND: { status: 404, message: 'The resource was not found.' },
  ROUTE_NOT_FOUND: { status: 404, message: 'No such endpoint.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed on this endpoint.' },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.' },
  TOTP_ALREADY_ENABLED: { status: 409, message: 'Two-factor sign-in is already enabled; disable it first.' },
  TOTP_NOT_ENROLLING: { status: 409, message: 'Start two-factor enrolment first.' },
  TOTP_NOT_ENABLED: { status: 409, message: 'Two-factor sign-in is not enabled.' },
  EMAIL_IN_USE: { status: 409, message: 'That email address is already in use.' },
  DOMAIN_EXISTS: { status: 409, message: 'This domain is already added to this project.' },
  DOMAIN_VERIFIED_ELSEWHERE: { status: 409, message: 'This domain is already verified by another project.' },
  DOMAIN_NOT_VERIFIED: { status: 409, message: 'The domain is not verified yet.' },
  CAMPAIGN_SENDING: { status: 409, message: 'The campaign is sending; cancel it first.' },
  WORKFLOW_HAS_ACTIVE_EXECUTIONS: { status: 409, message: 'The workflow has RUNNING or WAITING executions; cancel them or let them finish first.' },
  REENTRY_REFUSED: { status: 409, message: 'The re-entry rules of this workflow refuse another execution for this contact.' },
  IDEMPOTENCY_KEY_REUSED: { status: 409, message: 'This Idempotency-Key has already been used.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The Content-Type of the request is not supported.' },
  UNSUPPORTED_IMAGE_TYPE: { status: 415, message: 'The file is not a PNG, JPEG, GIF or WebP image.' },
  VALIDATION_ERROR: { status: 422, message: 'Request validation failed' },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request line and headers are too large (16 KB at most).' },
  RATE_LIMIT_EXCEEDED: { status: 429, message: 'Too many requests: the rate limit for this project was exceeded.' },
  INTERNAL_SERVER_ERROR: { status: 500, message: 'An unexpected error occurred.' },
  NOT_IMPLEMENTED: { status: 501, message: 'This feature is not available on this server.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is not ready.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** One field-level problem (the API reference (Errors); codes from docs/architecture.md). */
export type FieldError = { field: string; message: string; code: string; received?: string };

export type AppErrorOptions = {
  message?: string;
  details?: Record<string, unknown>;
  suggestion?: string;
  errors?: FieldError[];
  /** the API reference: some 400s (segment, template and contact create) answer a flat `{ error }`. */
  flat?: boolean;
  headers?: Record<string, string>;
};

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly details?: Record<string, unknown>;
  readonly suggestion?: string;
  readonly errors?: FieldError[];
  readonly flat: boolean;
  readonly headers?: Record<string, string>;

  constructor(code: ErrorCode, options: AppErrorOptions = {}) {
    super(options.message ?? ERRORS[code].message);
    this.name = 'AppError';
    this.code = code;
    this.statusCode = ERRORS[code].status;
    this.details = options.details;
    this.suggestion = options.suggestion;
    this.errors = options.errors;
    this.flat = options.flat ?? false;
    this.headers = options.headers;
  }
}

export const notFound = (what: string) => new AppError('NOT_FOUND', { message: `${what} not found.` });
export const forbidden = (message?: string) => new AppError('FORBIDDEN', { message });
export const badRequest = (message: string, options: Omit<AppErrorOptions, 'message'> = {}) => new AppError('BAD_REQUEST', { ...options, message });
/** The flat `{ error }` 400 that the API reference specifies for some create endpoints. */
export const flatBadRequest = (message: string) => new AppError('BAD_REQUEST', { message, flat: true });
