import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type FieldError } from '../errors.ts';

/**
 * The input boundary every route shares, before any schema or handler sees the request:
 * - JSON nested deeper than MAX_JSON_DEPTH is a 400 (deep values overflow recursive code: zod,
 *   JSON.stringify, PostgreSQL's jsonb parser);
 * - a string PostgreSQL cannot store in text or jsonb (a NUL, a lone UTF-16 surrogate), in a key or
 *   a value of the body, the query or the path, is a 422 naming the field, never a 500;
 * - query and path values are at most MAX_PARAMETER_LENGTH characters.
 */
export const MAX_JSON_DEPTH = 32;
export const MAX_PARAMETER_LENGTH = 2000;
/** A validation answer lists at most this many issues (the rest are counted in `details`). */
export const MAX_REPORTED_ISSUES = 20;

type Found = { tooDeep?: string; errors: FieldError[]; more: number };

// A NUL, or a UTF-16 surrogate not in a pair (with the u flag a pair is one code point, not Cs).
const UNSTORABLE = /[\u0000\p{Cs}]/u;
const storable = (value: string) => !UNSTORABLE.test(value);

function problem(field: string, value: string): FieldError {
  return value.includes('\0')
    ? { field, message: 'must not contain the NUL character (U+0000)', code: 'invalid_string' }
    : { field, message: 'must be valid Unicode (it holds an unpaired UTF-16 surrogate)', code: 'invalid_string' };
}

/** Walks a parsed value without recursion (a deep value must not overflow the stack here either). */
export function inspect(root: unknown, options: { maxDepth: number; maxLength?: number; prefix?: string }): Found {
  const found: Found = { errors: [], more: 0 };
  const report = (error: FieldError) => {
    if (found.errors.length < MAX_REPORTED_ISSUES) found.errors.push(error);
    else found.more++;
  };
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: root, path: options.prefix ?? '', depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!storable(value)) report(problem(path, value));
      else if (options.maxLength !== undefined && value.length > options.maxLength) {
        report({ field: path, message: `must be at most ${options.maxLength} characters`, code: 'too_big' });
      }
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth >= options.maxDepth) {
      found.tooDeep = path;
      return found;
    }
    const at = (key: string | number) => (path ? `${path}.${key}` : String(key));
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: at(i), depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      if (!storable(key)) report({ ...problem(at(key.replaceAll('\0', '\\u0000')), key), message: 'a key must not contain NUL or unpaired surrogates' });
      stack.push({ value: (value as Record<string, unknown>)[key], path: at(key), depth: depth + 1 });
    }
  }
  return found;
}

function refuse(found: Found): AppError {
  return new AppError('VALIDATION_ERROR', { errors: found.errors, ...(found.more ? { details: { moreIssues: found.more } } : {}) });
}

/** A parsed JSON body: too deep → 400, unstorable strings → 422. */
export function checkBody(body: unknown): void {
  const found = inspect(body, { maxDepth: MAX_JSON_DEPTH });
  if (found.tooDeep !== undefined) {
    throw new AppError('BAD_REQUEST', { message: `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep${found.tooDeep ? ` (at ${found.tooDeep})` : ''}.` });
  }
  if (found.errors.length) throw refuse(found);
}

function checkParameters(request: FastifyRequest): void {
  for (const part of [request.params, request.query]) {
    if (!part || typeof part !== 'object') continue;
    const found = inspect(part, { maxDepth: 4, maxLength: MAX_PARAMETER_LENGTH });
    if (found.errors.length) throw refuse(found);
  }
}

/**
 * Installs the boundary on the root instance (before any route): the JSON parser is Fastify's
 * own (prototype-poisoning checks included) followed by checkBody; params and query are checked
 * before validation.
 */
export function installInputBoundary(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    parseJson(request, body as string, (error: Error | null, value?: unknown) => {
      if (error) return done(error, undefined);
      try {
        checkBody(value);
      } catch (refused) {
        return done(refused as Error, undefined);
      }
      done(null, value);
    });
  });
  app.addHook('preValidation', async (request) => checkParameters(request));
}
