import { createHash } from 'node:crypto';
import { Context, type Emitter, filters, Liquid, type Context as LiquidContext, Tag, type Template, toValue, toValueSync } from 'liquidjs';
import { AppError } from '../errors.ts';
import { FALLBACK_FILTER, isMissing, originalPosition, type Rewritten, rewriteFallbacks } from './fallback.ts';
import { LruCache } from './lru.ts';

/**
 * The Liquid engine behind every rendered email (docs/decisions/templates.md), bounded so that a hostile template
 * cannot stall a worker: source length, render time, allocations inside filters and loops, and the
 * size of the output are all capped; exceeding any is a TEMPLATE_RENDER_ERROR, never a hang.
 */
export const LIMITS = Object.freeze({
  /** Characters of template source (a template body; api bodies are at most 1 MB anyway). */
  sourceChars: 1_000_000,
  /** Milliseconds one render may run (liquidjs `renderLimit`). */
  renderMs: 500,
  /** liquidjs `memoryLimit`: characters and array items that filters and ranges may allocate. */
  memory: 5_000_000,
  /** Characters of rendered HTML body. */
  htmlChars: 2_000_000,
  /** Characters a subject may render to before it is cut to 998 (a bound, not the header limit). */
  subjectChars: 100_000,
});

export type Mode = 'html' | 'plain';

/** A parsed template, ready to render many times (campaigns render one template per recipient). */
export type CompiledTemplate = { readonly mode: Mode; readonly templates: Template[] };

/** Tags that read files: a template must never reach the server's disk. */
class RefusedTag extends Tag {
  constructor(...args: ConstructorParameters<typeof Tag>) {
    super(...args);
    throw new Error(`the "${args[0].name}" tag is not supported`);
  }
  render(): void {}
}

/**
 * A variable's escaped output in an HTML body. It stays marked until the emitter writes it, so the
 * emitter knows a value came from a variable (not from the template's own text, not `| raw`). Not a
 * liquidjs Drop: liquidjs unwraps those before writing.
 */
class EscapedOutput {
  constructor(readonly html: string) {}
  // Any other emitter (capture, tablerow) stringifies it: the escaped text.
  toString(): string {
    return this.html;
  }
}

/** Schemes a variable may put at the start of an href or src (others could run script or reach files). */
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);
// The rendered text just before a value that starts a URL attribute's value.
const URL_ATTRIBUTE_START = /\s(?:href|src|action|formaction|background|poster)\s*=\s*["']?\s*$/i;

/** `#` for a URL whose scheme is not http, https, mailto or tel; relative URLs stay as they are. */
export function safeUrl(escaped: string): string {
  // Browsers drop ASCII whitespace and control characters inside a scheme (`java\tscript:`).
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(escaped.replace(/[\u0000-\u0020]/g, ''));
  return scheme && !SAFE_SCHEMES.has(scheme[1]!.toLowerCase()) ? '#' : escaped;
}

function createEngine(mode: Mode): Liquid {
  const engine = new Liquid({
    // HTML bodies escape every value (`{{ x | raw }}` opts out); subjects are plain text.
    outputEscape:
      mode === 'html'
        ? function (this: unknown, value: unknown) {
            // liquidjs writes whatever outputEscape returns; its type says string.
            return new EscapedOutput((filters.escape as (this: unknown, value: unknown) => string).call(this, value)) as unknown as string;
          }
        : undefined,
    strictVariables: false,
    strictFilters: true,
    ownPropertyOnly: true,
    timezoneOffset: 0,
    parseLimit: LIMITS.sourceChars,
    renderLimit: LIMITS.renderMs,
    memoryLimit: LIMITS.memory,
    cache: false,
  });
  for (const tag of ['include', 'render', 'layout']) engine.registerTag(tag, RefusedTag);
  engine.registerFilter(FALLBACK_FILTER, (value: unknown, fallback: unknown) => (isMissing(toValue(value)) ? fallback : value));
  return engine;
}

const engines: Record<Mode, Liquid> = { html: createEngine('html'), plain: createEngine('plain') };

// Keyed by mode and a hash of the source; bounded by count and by total source size.
const cache = new LruCache<string, CompiledTemplate>(1000, 32_000_000);

// A campaign renders one source per recipient: the last one per mode skips even the hashing.
const lastCompiled: Partial<Record<Mode, { source: string; compiled: CompiledTemplate }>> = {};

const sourceKey = (mode: Mode, source: string) => `${mode}:${createHash('sha256').update(source).digest('base64url')}`;

/** The position liquidjs reports for an error, if any. */
function liquidPosition(error: unknown): [number, number] | undefined {
  const token = (error as { token?: { getPosition?: () => [number, number] } })?.token;
  const position = token?.getPosition?.();
  return Array.isArray(position) ? position : undefined;
}

/** liquidjs messages end in ", line:L, col:C" (positions of the rewritten source): drop it. */
function liquidMessage(error: unknown): string {
  const original = (error as { originalError?: Error }).originalError;
  const message = (original?.message ?? (error as Error)?.message ?? String(error)).replace(/, line:\d+, col:\d+$/, '');
  return message.replaceAll(` | ${FALLBACK_FILTER}:`, ' ??').replaceAll(`| ${FALLBACK_FILTER}:`, '??');
}

function syntaxError(error: unknown, rewritten: Rewritten, field: string | undefined): AppError {
  const where = field ? ` in ${field}` : '';
  const raw = liquidPosition(error);
  if (error instanceof RangeError || !raw) {
    // Stack overflow on absurd nesting, or the parse limit: still the author's fault, still a 400.
    return new AppError('TEMPLATE_SYNTAX_ERROR', { message: `Template${where} could not be parsed: ${liquidMessage(error)}`, details: field ? { field } : undefined });
  }
  const { line, column } = originalPosition(rewritten, raw[0], raw[1]);
  return new AppError('TEMPLATE_SYNTAX_ERROR', {
    message: `Template syntax error${where} at line ${line}, column ${column}: ${liquidMessage(error)}`,
    details: { ...(field ? { field } : {}), line, column },
  });
}

/**
 * Parses a template (cached by source hash). Broken syntax → 400 TEMPLATE_SYNTAX_ERROR naming the
 * line and column (docs/decisions/templates.md); `field` names the part (subject, body) in the message.
 */
export function compile(source: string, mode: Mode, field?: string): CompiledTemplate {
  const last = lastCompiled[mode];
  if (last?.source === source) return last.compiled;
  const key = sourceKey(mode, source);
  const hit = cache.get(key);
  if (hit) {
    lastCompiled[mode] = { source, compiled: hit };
    return hit;
  }
  if (source.length > LIMITS.sourceChars) {
    throw new AppError('TEMPLATE_SYNTAX_ERROR', {
      message: `Template${field ? ` in ${field}` : ''} is longer than ${LIMITS.sourceChars} characters.`,
      details: field ? { field } : undefined,
    });
  }
  const rewritten = rewriteFallbacks(source);
  let templates: Template[];
  try {
    templates = engines[mode].parse(rewritten.source);
  } catch (error) {
    throw syntaxError(error, rewritten, field);
  }
  const compiled: CompiledTemplate = Object.freeze({ mode, templates });
  cache.set(key, compiled, source.length + 64);
  lastCompiled[mode] = { source, compiled };
  return compiled;
}

class OutputTooLarge extends Error {}

/**
 * liquidjs's own SimpleEmitter, with a ceiling (the output stops growing at `max` characters) and
 * the URL rule of docs/decisions/templates.md: a variable's value that starts an href or src keeps its URL only for
 * http, https, mailto and tel; any other scheme (javascript:, data:, vbscript:…) becomes `#`.
 * `{{ url | raw }}` opts out, as it does for escaping.
 */
class BoundedEmitter implements Emitter {
  buffer = '';
  /** The last characters written, kept apart: slicing `buffer` itself would flatten it on every write. */
  private tail = '';
  constructor(private readonly max: number) {}
  write(html: unknown): void {
    let text: string;
    if (html instanceof EscapedOutput) text = URL_ATTRIBUTE_START.test(this.tail) ? safeUrl(html.html) : html.html;
    else text = stringify(html);
    this.buffer += text;
    this.tail = text.length >= 64 ? text.slice(-64) : (this.tail + text).slice(-64);
    if (this.buffer.length > this.max) throw new OutputTooLarge(`the output is longer than ${this.max} characters`);
  }
}

function stringify(value: unknown): string {
  const plain = toValue(value);
  if (typeof plain === 'string') return plain;
  if (plain === null || plain === undefined) return '';
  if (Array.isArray(plain)) return plain.map(stringify).join('');
  return String(plain);
}

/** Renders a compiled template; any failure (limits included) → 400 TEMPLATE_RENDER_ERROR. */
export function renderCompiled(compiled: CompiledTemplate, variables: Record<string, unknown>, maxChars: number, field?: string): string {
  const engine = engines[compiled.mode];
  const emitter = new BoundedEmitter(maxChars);
  try {
    const context: LiquidContext = new Context(variables, engine.options);
    toValueSync(engine.renderer.renderTemplates(compiled.templates, context, emitter));
    return emitter.buffer;
  } catch (error) {
    const where = field ? ` ${field}` : '';
    throw new AppError('TEMPLATE_RENDER_ERROR', {
      message: `The template${where} could not be rendered: ${liquidMessage(error)}`,
      details: field ? { field } : undefined,
    });
  }
}

/** For tests and operations: how many compiled templates are cached. */
export const compiledCacheSize = () => cache.size;
