import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import type { FieldError } from '../errors.ts';
import { MAX_REPORTED_ISSUES } from './input.ts';

/** A failed schema check of one part of the request (body, querystring, params, headers). */
export class RequestValidationError extends Error {
  constructor(
    readonly part: string,
    readonly fieldErrors: FieldError[],
    /** Issues beyond the MAX_REPORTED_ISSUES listed. */
    readonly more = 0,
  ) {
    super('Request validation failed');
    this.name = 'RequestValidationError';
  }
}

// Zod 4 issue codes → the codes of docs/architecture.md.
const CODE_MAP: Record<string, string> = {
  invalid_type: 'invalid_type',
  invalid_format: 'invalid_string',
  invalid_value: 'invalid_enum_value',
  too_big: 'too_big',
  too_small: 'too_small',
  unrecognized_keys: 'unrecognized_keys',
  invalid_union: 'invalid_type',
};

function describeReceived(input: unknown): string {
  if (input === undefined) return 'undefined';
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  return typeof input;
}

const MAX_MESSAGE = 300;
const clip = (text: string) => (text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text);

/**
 * Turns zod issues into the API reference field errors with dot paths (`attachments.0.filename`): at most
 * MAX_REPORTED_ISSUES of them, messages and paths clipped, so the answer stays small whatever
 * was sent (a 100,000-item array of wrong items is one short answer, not megabytes).
 */
export function toFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
    const custom = issue.code === 'custom' ? (issue.params as { code?: string } | undefined)?.code : undefined;
    const fieldError: FieldError = {
      field: clip(issue.path.map(String).join('.')),
      message: issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : clip(issue.message),
      code: custom ?? CODE_MAP[issue.code] ?? 'custom',
    };
    if (issue.code === 'invalid_type') fieldError.received = describeReceived(issue.input);
    return fieldError;
  });
}

/** Fastify validator compiler for zod schemas: reports every issue, in the contract's codes. */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const result = schema.safeParse(data, { reportInput: true });
    if (result.success) return { value: result.data };
    const { issues } = result.error;
    const more = Math.max(0, issues.length - MAX_REPORTED_ISSUES);
    return { error: new RequestValidationError(httpPart ?? 'body', toFieldErrors(issues), more) as unknown as Error };
  };
