import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import type { FieldError } from '../errors.ts';

/** A failed schema check of one part of the request (body, querystring, params, headers). */
export class RequestValidationError extends Error {
  constructor(
    readonly part: string,
    readonly fieldErrors: FieldError[],
  ) {
    super('Request validation failed');
    this.name = 'RequestValidationError';
  }
}

// Zod 4 issue codes → the codes of contract §3.
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

/** Turns zod issues into api.md field errors with dot paths (`attachments.0.filename`). */
export function toFieldErrors(issues: readonly z.core.$ZodIssue[]): FieldError[] {
  return issues.map((issue) => {
    const custom = issue.code === 'custom' ? (issue.params as { code?: string } | undefined)?.code : undefined;
    const fieldError: FieldError = {
      field: issue.path.map(String).join('.'),
      message: issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : issue.message,
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
    return { error: new RequestValidationError(httpPart ?? 'body', toFieldErrors(result.error.issues)) as unknown as Error };
  };
