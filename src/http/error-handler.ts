import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { type ConstraintErrors, translateDbError } from '../db/errors.ts';
import { AppError, ERRORS, type ErrorCode } from '../errors.ts';
import { RequestValidationError } from './validation.ts';

/** the API reference (Errors): the envelope every failure is written in. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  if (error.headers) reply.headers(error.headers);
  if (error.flat) return reply.status(error.statusCode).send({ error: error.message });
  return reply.status(error.statusCode).send({
    success: false,
    error: {
      code: error.code,
      message: error.message,
      statusCode: error.statusCode,
      requestId: request.id,
      ...(error.errors ? { errors: error.errors } : {}),
      ...(error.details ? { details: error.details } : {}),
      ...(error.suggestion ? { suggestion: error.suggestion } : {}),
    },
    timestamp: new Date().toISOString(),
  });
}

// Fastify's own request errors, by code, mapped to ours.
const FASTIFY_CODES: Record<string, ErrorCode> = {
  FST_ERR_CTP_INVALID_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'INVALID_JSON',
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_REQUEST',
  FST_REQ_FILE_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_FILES_LIMIT: 'PAYLOAD_TOO_LARGE',
  FST_INVALID_MULTIPART_CONTENT_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_BAD_URL: 'BAD_REQUEST',
  FST_ERR_MAX_PARAM_LENGTH: 'BAD_REQUEST',
};

const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

// busboy's errors for a multipart body cut short or with broken part headers carry no code.
const MALFORMED_MULTIPART = /unexpected end of (multipart data|form)|malformed part header|boundary not found|multipart: /i;

/** Normalises anything thrown in a request into an AppError. */
export function toAppError(error: unknown, constraints: ConstraintErrors = {}): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof Error && !(error as FastifyError).code && MALFORMED_MULTIPART.test(error.message)) {
    return new AppError('BAD_REQUEST', { message: 'The multipart body is malformed (a part or the closing boundary is missing).' });
  }
  if (error instanceof RequestValidationError) {
    // A malformed query parameter is a 400 (the API reference); a body or path that fails its schema is a 422.
    const details = error.more ? { details: { moreIssues: error.more } } : {};
    if (error.part === 'querystring') return new AppError('BAD_REQUEST', { message: 'Invalid query parameters.', errors: error.fieldErrors, ...details });
    return new AppError('VALIDATION_ERROR', { errors: error.fieldErrors, ...details });
  }
  const fromDb = translateDbError(error, constraints);
  if (fromDb) return fromDb;
  const fastifyError = error as FastifyError;
  const mapped = fastifyError?.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (mapped) return new AppError(mapped, mapped === 'INVALID_JSON' ? {} : { message: clip(fastifyError.message) });
  if (error instanceof SyntaxError && (error as FastifyError).statusCode === 400) return new AppError('INVALID_JSON');
  if (typeof fastifyError?.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new AppError('BAD_REQUEST', { message: clip(fastifyError.message) });
  }
  return new AppError('INTERNAL_SERVER_ERROR');
}

/** The routes' error handler; `constraints` name the capabilities' unique constraints with their 409s. */
export function errorHandler(constraints: ConstraintErrors) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(error, constraints);
    if (appError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(request, reply, appError);
  };
}

/** Fastify's router errors before any route (a path that is not valid percent-encoding, a too long parameter). */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  return sendError(request, reply, toAppError(error));
}

/**
 * Node's HTTP parser errors (headers over 16 KB, a malformed request line, a timeout), answered
 * on the socket itself (there is no request yet) but in the same envelope.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex) {
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return socket.destroy();
  const code: ErrorCode = error.code === 'HPE_HEADER_OVERFLOW' ? 'HEADERS_TOO_LARGE' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST';
  const { status, message } = ERRORS[code];
  const body = JSON.stringify({
    success: false,
    error: { code, message: code === 'BAD_REQUEST' ? 'The HTTP request is malformed.' : message, statusCode: status, requestId: `req_${randomUUID().replaceAll('-', '')}` },
    timestamp: new Date().toISOString(),
  });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function notFoundHandler(request: FastifyRequest, reply: FastifyReply) {
  return sendError(request, reply, new AppError('ROUTE_NOT_FOUND', { message: `No endpoint ${request.method} ${request.url.split('?')[0]}.` }));
}
