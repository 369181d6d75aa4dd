// `npm run bench [-- --only auth-whoami --duration 5 --connections 64 --warmup 2 --db embedded]`
// Prints one JSON line per scenario on stdout (progress goes to stderr), each with its throughput
// as a ratio of a bare Fastify hello-world measured in the same run on the same machine.
import { parseArgs } from 'node:util';
import { createProject } from '../test/kit/accounts.ts';
import { startSmtpSink } from '../test/kit/smtp.ts';
import { type LoadSettings, measureHttp } from './measure.ts';
import { type ChildServer, startHelloWorld, startMailroom } from './processes.ts';
import { savePlans } from './save-plans.ts';
import type { BenchContext, DatabaseLabel, Measurement, Scenario } from './scenario.ts';
import { SCENARIOS } from './scenarios/index.ts';

const USAGE = `npm run bench -- [--only <name>[,<name>…]] [--duration <s>=10] [--connections <n>=64] [--warmup <s>=2] [--db embedded|postgres|citus]
Scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}
PostgreSQL runs too when BENCH_DATABASE_URL is set (a fresh database is created on that server and dropped after);
Citus when BENCH_CITUS_URL names a coordinator (the database is made on it and on every worker, tables distributed),
with the plans of the hot statements written to bench/plans/<db>.txt for both.`;

const { values: flags } = parseArgs({
  options: {
    only: { type: 'string', multiple: true },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '64' },
    warmup: { type: 'string', default: '2' },
    db: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  },
});

function positive(name: string, raw: string, allowZero = false): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    console.error(`--${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

if (flags.help) {
  console.log(USAGE);
  process.exit(0);
}

const settings: LoadSettings = {
  durationSeconds: positive('duration', flags.duration!),
  connections: positive('connections', flags.connections!),
  warmupSeconds: positive('warmup', flags.warmup!, true),
};

const only = flags.only
  ?.flatMap((o) => o.split(','))
  .map((o) => o.trim())
  .filter(Boolean);
const unknown = only?.filter((name) => !SCENARIOS.some((s) => s.name === name)) ?? [];
if (unknown.length) {
  console.error(`Unknown scenario(s): ${unknown.join(', ')}\n${USAGE}`);
  process.exit(2);
}
const selected = SCENARIOS.filter((s) => !s.baseline && (!only || only.includes(s.name)));

const available: DatabaseLabel[] = ['embedded', ...(process.env.BENCH_DATABASE_URL ? (['postgres'] as const) : []), ...(process.env.BENCH_CITUS_URL ? (['citus'] as const) : [])];
const databases = (flags.db ?? available) as DatabaseLabel[];
for (const db of databases) {
  if (!available.includes(db)) {
    const needs = { postgres: 'set BENCH_DATABASE_URL', citus: 'set BENCH_CITUS_URL' } as Record<string, string>;
    console.error(`--db ${db}: ${needs[db] ?? 'unknown database'}\n${USAGE}`);
    process.exit(2);
  }
}

const running = new Set<ChildServer>();
process.on('SIGINT', () => {
  void Promise.all([...running].map((server) => server.stop())).finally(() => process.exit(130));
});

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);
const round3 = (value: number) => Math.round(value * 1000) / 1000;

function printLine(scenario: string, db: DatabaseLabel | 'none', m: Measurement, baselineReqPerSec: number) {
  const { reqPerSec, p50Ms, p99Ms, errors, non2xx, durationSeconds, connections, ...extra } = m;
  // A custom measure in another unit (rows/s, messages/s) is not comparable to requests per second.
  const ratioToHelloWorld = baselineReqPerSec > 0 && extra.unit === undefined ? round3(reqPerSec / baselineReqPerSec) : null;
  const line = { scenario, db, connections, durationSeconds, reqPerSec, p50Ms, p99Ms, errors, non2xx, ratioToHelloWorld, ...extra };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

async function withServer<T>(start: Promise<ChildServer>, use: (server: ChildServer) => Promise<T>): Promise<T> {
  const server = await start;
  running.add(server);
  try {
    return await use(server);
  } finally {
    running.delete(server);
    await server.stop();
  }
}

async function measure(scenario: Scenario, ctx: BenchContext): Promise<Measurement> {
  const state = await scenario.setup?.(ctx);
  try {
    if (scenario.run) return await scenario.run(ctx, state);
    if (!scenario.http) throw new Error(`scenario ${scenario.name} has neither http nor run`);
    return await measureHttp(ctx.baseUrl, scenario.http(ctx, state), settings);
  } finally {
    await scenario.teardown?.(ctx, state);
  }
}

/** Scenarios that need the same server settings share one Mailroom process (and one project). */
function groupByServer(scenarios: Scenario[]): Scenario[][] {
  const groups = new Map<string, Scenario[]>();
  for (const s of scenarios) {
    const key = JSON.stringify(s.server ?? {});
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups.values()];
}

async function main(): Promise<number> {
  let failures = 0;
  const baseline = SCENARIOS.find((s) => s.baseline);
  if (!baseline?.http) throw new Error('the scenario list needs the hello-world baseline');
  progress(`${baseline.name}: ${settings.connections} connections, ${settings.warmupSeconds} s warm-up, ${settings.durationSeconds} s`);
  const base = await withServer(startHelloWorld(), (server) => measureHttp(server.url, baseline.http!({} as BenchContext, undefined), settings));
  printLine(baseline.name, 'none', base, base.reqPerSec);

  for (const db of databases) {
    let planned = db === 'embedded';
    for (const group of groupByServer(selected.filter((s) => !s.databases || s.databases.includes(db)))) {
      const server = group[0]!.server ?? {};
      const smtp = server.smtpSink ? await startSmtpSink() : undefined;
      const env = { ...server.env, ...(smtp ? { SMTP_URL: smtp.url } : {}) };
      progress(`starting Mailroom on ${db}${Object.keys(env).length ? ` with ${JSON.stringify(env)}` : ''}`);
      try {
        await withServer(startMailroom(db, env, server.workerProcess), async (mailroom) => {
          const project = await createProject(mailroom.url);
          for (const scenario of group) {
            progress(`${scenario.name} on ${db}`);
            const ctx: BenchContext = { baseUrl: mailroom.url, db, project, smtp, ...settings, withServerStopped: mailroom.withServerStopped! };
            try {
              printLine(scenario.name, db, await measure(scenario, ctx), base.reqPerSec);
            } catch (error) {
              failures++;
              progress(`${scenario.name} on ${db} failed: ${(error as Error).stack ?? error}`);
            }
          }
          if (!planned && mailroom.databaseUrl) {
            planned = true;
            const line = await savePlans(db, mailroom.databaseUrl, project.id);
            process.stdout.write(`${JSON.stringify(line)}\n`);
          }
        });
      } finally {
        await smtp?.close();
      }
    }
  }
  return failures;
}

main().then(
  (failures) => process.exit(failures ? 1 : 0),
  (error) => {
    console.error(error);
    void Promise.all([...running].map((server) => server.stop())).finally(() => process.exit(1));
  },
);
