import type { TestProject } from './accounts.ts';

/**
 * A generator of malformed requests derived from /openapi.json: for every operation, path
 * parameters, queries and JSON bodies built from the operation's schemas, then broken (wrong types,
 * NULs, unpaired surrogates, huge and deep values, odd content types, bad paths and queries). Each
 * answer must be below 500 and, when an error, in the envelope (or the API reference's flat `{ error }`);
 * /health is polled alongside and must answer within HEALTH_LIMIT_MS throughout.
 */
export const HEALTH_LIMIT_MS = 1000;

type Schema = Record<string, any>;
type Operation = { method: string; path: string; parameters: Schema[]; body?: Schema; multipart: boolean; session: boolean };
export type FuzzFailure = { request: string; status: number; answer: string };
export type FuzzReport = {
  requests: number;
  operations: number;
  failures: FuzzFailure[];
  byStatus: Record<number, number>;
  healthChecks: number;
  healthWorstMs: number;
  /** The slowest answers (ms and request), to find what takes the server long. */
  slowest: Array<{ ms: number; request: string }>;
};

/** Operations whose success would end the fuzz's own access (the key, the session, the project). */
const SPARED = new Set(['GET /auth/logout', 'DELETE /users/@me/projects/{id}', 'POST /users/@me/projects/{id}/regenerate-keys', 'POST /users/@me/projects/{id}/reset']);

/** mulberry32: a small seeded generator, so a failing seed can be replayed (FUZZ_SEED). */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)]!, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

const NASTY_STRINGS = [
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '',
  ' ',
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '%_\\%',
  '<script>alert(1)</script>',
  'javascript:alert(1)',
  '{{ 7 * 7 }}{% raw %}',
  'ｆｕｌｌ　ｗｉｄｔｈ — Ünïcödé 中文 العربية 🎉',
  '\r\nX-Injected: 1',
  'not-an-email@',
  '2026-13-45T99:99:99Z',
  '-1',
  '1e309',
  'NaN',
  'true',
  'null',
];

const longString = (rnd: Random) => rnd.pick(['a', 'é', '%', '中', '\u0000']).repeat(rnd.pick([256, 1001, 5000, 100_000]));

function deep(depth: number, leaf: unknown, asArray: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  return value;
}

function nastyValue(rnd: Random): unknown {
  switch (rnd.int(10)) {
    case 0:
      return rnd.pick(NASTY_STRINGS);
    case 1:
      return longString(rnd);
    case 2:
      return rnd.pick([0, -1, 1.5, 2 ** 53 + 1, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER]);
    case 3:
      return rnd.pick([true, false, null]);
    case 4:
      return deep(rnd.pick([5, 31, 40]), rnd.pick(NASTY_STRINGS), rnd.chance(0.5));
    case 5:
      return Array.from({ length: rnd.pick([0, 3, 1000, 20_000]) }, (_, i) => (rnd.chance(0.5) ? i : rnd.pick(NASTY_STRINGS)));
    case 6:
      return Object.fromEntries(Array.from({ length: rnd.pick([1, 50, 2000]) }, (_, i) => [rnd.chance(0.1) ? `k\u0000${i}` : `key${i}`, rnd.pick(NASTY_STRINGS)]));
    case 7:
      return {
        logic: rnd.pick(['AND', 'OR', 'XOR', 5]),
        groups: [
          {
            filters: [
              {
                field: rnd.pick(['email', 'data.plan', 'event.x', 'createdAt', 'segment.x']),
                operator: rnd.pick(['contains', 'notContains', 'within', 'equals', 'bogus']),
                value: nastyValue(rnd),
                unit: rnd.pick([5, 'days', '\u0000', undefined]),
              },
            ],
          },
        ],
      };
    case 8:
      return {};
    default:
      return [];
  }
}

function resolve(doc: Schema, schema: Schema | undefined): Schema {
  let current = schema ?? {};
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    const path = String(current.$ref).replace(/^#\//, '').split('/');
    current = path.reduce((node: any, key) => node?.[key], doc) ?? {};
  }
  return current;
}

/** A value that fits `schema` (roughly): the base a mutation then breaks in one place. */
function sample(doc: Schema, input: Schema | undefined, rnd: Random, depth = 0): unknown {
  const schema = resolve(doc, input);
  if (depth > 6) return null;
  if (schema.enum) return rnd.pick(schema.enum);
  if (schema.const !== undefined) return schema.const;
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) return sample(doc, rnd.pick(variants), rnd, depth + 1);
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part: Schema) => sample(doc, part, rnd, depth + 1)));
  const type = Array.isArray(schema.type) ? rnd.pick(schema.type) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, property] of Object.entries<Schema>(schema.properties ?? {})) {
        if ((schema.required ?? []).includes(key) || rnd.chance(0.5)) out[key] = sample(doc, property, rnd, depth + 1);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: rnd.int(3) }, () => sample(doc, schema.items, rnd, depth + 1));
    case 'string':
      if (schema.format === 'email') return `fuzz${rnd.int(1000)}@example.com`;
      if (schema.format === 'uuid') return crypto.randomUUID();
      if (schema.format === 'date-time') return new Date().toISOString();
      return rnd.pick(['Newsletter März', 'Welcome', 'signup', 'plan', 'https://example.com/a']);
    case 'integer':
    case 'number':
      return rnd.int(100);
    case 'boolean':
      return rnd.chance(0.5);
    case 'null':
      return null;
    default:
      return rnd.pick(['x', 1, true, null]);
  }
}

/** Replaces one random spot of `value` (or adds a key) with a nasty value. */
function mutate(value: unknown, rnd: Random): unknown {
  if (rnd.chance(0.15) || typeof value !== 'object' || value === null) return nastyValue(rnd);
  const copy: any = Array.isArray(value) ? [...value] : { ...value };
  const keys = Object.keys(copy);
  if (!keys.length || rnd.chance(0.2)) {
    copy[rnd.pick(['extra', '__proto__', 'constructor', 'a\u0000', 'name'])] = nastyValue(rnd);
    return copy;
  }
  const key = rnd.pick(keys);
  copy[key] = rnd.chance(0.5) ? mutate(copy[key], rnd) : nastyValue(rnd);
  return copy;
}

/** encodeURIComponent, with an unpaired surrogate sent as its (invalid) UTF-8 bytes. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

function pathValue(rnd: Random, realIds: readonly string[]): string {
  return rnd.pick([
    () => crypto.randomUUID(),
    () => rnd.pick(realIds),
    () => '%00',
    () => 'a%00b',
    () => '%ED%A0%80',
    () => '%FF%FE',
    () => encode(longString(rnd).slice(0, 3000)),
    () => '..%2F..%2Fetc%2Fpasswd',
    () => 'not-a-uuid',
    () => encode(rnd.pick(NASTY_STRINGS)),
    () => '0',
    () => '%',
  ])();
}

function queryString(doc: Schema, operation: Operation, rnd: Random): string {
  const parts: string[] = [];
  for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
    if (!rnd.chance(0.6)) continue;
    const raw = rnd.chance(0.5) ? sample(doc, parameter.schema, rnd) : nastyValue(rnd);
    const text = typeof raw === 'string' ? raw : (JSON.stringify(raw) ?? '');
    parts.push(`${parameter.name}=${rnd.chance(0.1) ? '%ZZ%00' : encode(text.slice(0, 5000))}`);
  }
  if (rnd.chance(0.2)) parts.push(rnd.pick(['limit=-5', 'limit=1e9', 'page=0', 'cursor=%00', 'a[b][c]=1', 'x=1&x=2', 'sort=%ED%A0%80', '=%00']));
  return parts.length ? `?${parts.join('&')}` : '';
}

type Built = { method: string; url: string; headers: Record<string, string>; body?: string | Buffer };

function build(doc: Schema, operation: Operation, rnd: Random, baseUrl: string, project: TestProject): Built {
  const realIds = [project.id, project.owner.id];
  const spared = SPARED.has(`${operation.method} ${operation.path}`);
  const path = operation.path.replace(/\{[^}]+\}/g, () => {
    const value = pathValue(rnd, realIds);
    return spared && realIds.includes(value) ? crypto.randomUUID() : value;
  });
  const headers: Record<string, string> = {};
  const auth = rnd.int(10);
  if (auth < 6) headers.authorization = `Bearer ${project.secretKey}`;
  else if (auth < 7) headers.authorization = `Bearer ${project.publicKey}`;
  else if (auth < 9) Object.assign(headers, { cookie: project.owner.cookie, 'x-project-id': rnd.chance(0.9) ? project.id : 'not-a-uuid', 'x-requested-with': 'fetch' });
  if (rnd.chance(0.05)) headers['idempotency-key'] = rnd.pick(['k', 'x'.repeat(300), 'é']);

  let body: string | Buffer | undefined;
  const kind = operation.method === 'GET' ? -1 : rnd.int(20);
  if (kind === -1) {
    // fetch sends no body with a GET.
  } else if (operation.multipart || kind === 0) {
    const boundary = 'fuzzBOUNDARY';
    headers['content-type'] = rnd.pick([`multipart/form-data; boundary=${boundary}`, 'multipart/form-data', 'multipart/form-data; boundary=']);
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${rnd.pick(['a.csv', 'a.png', '../x', 'a\u0000.csv'])}"\r\nContent-Type: ${rnd.pick(['text/csv', 'image/png', 'text/html'])}\r\n\r\n${rnd.pick(['email\nfuzz@example.com\n', '\u0089PNG\r\n', longString(rnd)])}`;
    body = rnd.chance(0.5) ? part : `${part}\r\n--${boundary}--\r\n`;
  } else if (kind === 1) {
    headers['content-type'] = rnd.pick(['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'application/octet-stream', 'application/json; charset=latin1']);
    body = rnd.pick(['a=1&b=2', '<x/>', '\u0000\u0001', '{"a":1}']);
  } else if (kind === 2 && operation.method !== 'GET') {
    headers['content-type'] = 'application/json';
    body = rnd.pick(['{', '[1,2', '{"a":1}}', '', 'nul', '"\\ud800"', '{"a":"\\u0000"}', '['.repeat(5000) + ']'.repeat(5000), `${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`]);
  } else if (operation.body || (kind === 3 && operation.method !== 'GET')) {
    headers['content-type'] = 'application/json';
    const base = sample(doc, operation.body, rnd);
    body = JSON.stringify(rnd.chance(0.9) ? mutate(base, rnd) : base) ?? 'null';
  }
  return { method: operation.method, url: baseUrl + path + queryString(doc, operation, rnd), headers, body };
}

function operationsOf(doc: Schema): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const [method, op] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const upper = method.toUpperCase();
      if (upper === 'GET' && path === '/auth/logout') continue;
      const content = op.requestBody?.content ?? {};
      operations.push({
        method: upper,
        path,
        parameters: (op.parameters ?? []).map((p: Schema) => resolve(doc, p)),
        body: content['application/json']?.schema,
        multipart: path === '/uploads/image' || path === '/contacts/import' || Boolean(content['multipart/form-data']),
        session: JSON.stringify(op.security ?? '').includes('session'),
      });
    }
  }
  return operations;
}

/** Pages for people reading their mail (docs/decisions/sending.md): their errors are pages too, not JSON. */
const HTML_PAGES = new Set(['/u/{token}', '/s/{token}', '/m/{token}', '/t/c/{token}']);

function envelopeProblem(operation: Operation, status: number, text: string, contentType: string): string | undefined {
  // 501 NOT_IMPLEMENTED is a documented answer (checkout and billing portal without a payment
  // provider), reached when a generated request happens to be authorized; it must be in the envelope.
  if (status >= 500 && !(status === 501 && text.includes('"code":"NOT_IMPLEMENTED"'))) return 'a 5xx';
  if (status < 400) return undefined;
  if (HTML_PAGES.has(operation.path) && contentType.startsWith('text/html')) return undefined;
  if (!contentType.includes('application/json')) return `an error as ${contentType || 'no content type'}`;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return 'an error that is not JSON';
  }
  if (typeof body?.error === 'string' && Object.keys(body).length === 1) return undefined; // the API reference's flat 400s
  const error = body?.error;
  if (body?.success !== false || typeof error?.code !== 'string' || typeof error?.message !== 'string' || error?.statusCode !== status) return 'an error outside the envelope';
  if (text.length > 64 * 1024) return `an error answer of ${text.length} bytes`;
  return undefined;
}

/** Runs the fuzz for `budgetMs` with `concurrency` requests in flight; every operation is visited in turn. */
export async function fuzz(options: { baseUrl: string; project: TestProject; budgetMs: number; seed: number; healthLimitMs: number; concurrency?: number }): Promise<FuzzReport> {
  const doc = (await (await fetch(`${options.baseUrl}/openapi.json`)).json()) as Schema;
  const operations = operationsOf(doc);
  const rnd = random(options.seed);
  const report: FuzzReport = { requests: 0, operations: operations.length, failures: [], byStatus: {}, healthChecks: 0, healthWorstMs: 0, slowest: [] };
  const deadline = Date.now() + options.budgetMs;
  let turn = 0;

  let working = true;
  const inFlight = new Set<string>();
  let last = performance.now();
  const drift = setInterval(() => {
    const now = performance.now();
    if (process.env.FUZZ_DEBUG && now - last > 250) console.log(`blocked ${Math.round(now - last)} ms during: ${[...inFlight].join(' | ')}`);
    last = now;
  }, 20);
  const health = (async () => {
    while (working) {
      const started = performance.now();
      const response = await fetch(`${options.baseUrl}/health`, { signal: AbortSignal.timeout(10_000) }).catch((error: Error) => ({ status: 0, error }));
      const took = performance.now() - started;
      report.healthChecks++;
      report.healthWorstMs = Math.max(report.healthWorstMs, took);
      if (response.status !== 200 || took > options.healthLimitMs) report.failures.push({ request: 'GET /health', status: response.status, answer: `${Math.round(took)} ms` });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  // Runs for the budget, and at least until every operation had its turn (a slow machine).
  const worker = async () => {
    while (Date.now() < deadline || turn < operations.length) {
      const operation = operations[turn++ % operations.length]!;
      const request = build(doc, operation, rnd, options.baseUrl, options.project);
      const label = `${request.method} ${request.url.slice(options.baseUrl.length, options.baseUrl.length + 200)} ${request.headers['content-type'] ?? ''} ${typeof request.body === 'string' ? request.body.slice(0, 200) : ''}`;
      const started = performance.now();
      inFlight.add(label.slice(0, 150));
      try {
        const response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          body: request.body,
          redirect: 'manual',
          signal: AbortSignal.timeout(30_000),
        });
        const text = await response.text();
        report.requests++;
        const ms = Math.round(performance.now() - started);
        if (report.slowest.length < 5 || ms > report.slowest.at(-1)!.ms) {
          report.slowest = [...report.slowest, { ms, request: label.slice(0, 160) }].sort((a, b) => b.ms - a.ms).slice(0, 5);
        }
        report.byStatus[response.status] = (report.byStatus[response.status] ?? 0) + 1;
        const problem = envelopeProblem(operation, response.status, text, response.headers.get('content-type') ?? '');
        if (problem) report.failures.push({ request: label, status: response.status, answer: `${problem}: ${text.slice(0, 300)}` });
      } catch (error) {
        report.failures.push({ request: label, status: 0, answer: `no answer: ${(error as Error).message}` });
      }
      inFlight.delete(label.slice(0, 150));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 8 }, worker));
  working = false;
  clearInterval(drift);
  await health;
  return report;
}

/**
 * The /health bound for this run: HEALTH_LIMIT_MS, or five times the worst of 20 /health calls on
 * the idle server when the machine itself is that slow (a shared, loaded CI machine).
 */
export async function healthLimit(baseUrl: string): Promise<{ limitMs: number; idleWorstMs: number }> {
  let idleWorstMs = 0;
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    await fetch(`${baseUrl}/health`);
    idleWorstMs = Math.max(idleWorstMs, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { limitMs: Math.max(HEALTH_LIMIT_MS, Math.round(5 * idleWorstMs)), idleWorstMs: Math.round(idleWorstMs) };
}
