import type { AutocannonRequest } from 'autocannon';
import type { Db } from '../src/db/index.ts';
import type { TestProject } from '../test/kit/accounts.ts';
import type { SmtpSink } from '../test/kit/smtp.ts';

export type DatabaseLabel = 'embedded' | 'postgres' | 'citus';

/** What a scenario gets: a running Mailroom (child process) with one project already set up. */
export type BenchContext = {
  baseUrl: string;
  db: DatabaseLabel;
  /** A project created over HTTP (signup, then POST /users/@me/projects) with preset clients. */
  project: TestProject;
  /** The SMTP relay the server delivers to, when the scenario asked for one (`server.smtpSink`). */
  smtp?: SmtpSink;
  connections: number;
  durationSeconds: number;
  /** Stops the server, gives its database to `work` (to seed data in SQL), restarts it. */
  withServerStopped: (work: (db: Db) => Promise<void>) => Promise<void>;
};

/** One HTTP request, repeated by every connection for the duration (autocannon's options). */
export type HttpLoad = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** A sequence each connection loops over instead (autocannon `requests`, e.g. with setupRequest). */
  requests?: AutocannonRequest[];
  /** The status a correct answer has (checked once before measuring). Default: any 2xx. */
  expectStatus?: number;
};

/** What one measurement yields; a custom `run` may add fields, which are printed too. */
export type Measurement = {
  reqPerSec: number;
  p50Ms: number | null;
  p99Ms: number | null;
  errors: number;
  non2xx: number;
  durationSeconds: number;
  connections: number;
  [extra: string]: unknown;
};

/**
 * A benchmark scenario (bench/scenarios/<name>.ts, listed in bench/scenarios/index.ts).
 * Give `http` for a request-rate measure, or `run` for anything else (e.g. messages delivered per
 * second: return `reqPerSec` as that rate and say so in an extra field such as `unit`).
 */
export type Scenario<State = any> = {
  name: string;
  description: string;
  /** `hello-world` only: runs once against the bare Fastify baseline, not against Mailroom. */
  baseline?: boolean;
  /** The databases it runs on (default: every one measured); ROLE=api needs PostgreSQL, for one. */
  databases?: DatabaseLabel[];
  /** How the Mailroom process must be started; scenarios with the same settings share one. */
  server?: {
    env?: Record<string, string>;
    smtpSink?: boolean;
    /** A second Mailroom process with ROLE=worker on the same database (PostgreSQL only). */
    workerProcess?: boolean;
  };
  setup?: (ctx: BenchContext) => Promise<State>;
  http?: (ctx: BenchContext, state: State) => HttpLoad;
  run?: (ctx: BenchContext, state: State) => Promise<Measurement>;
  teardown?: (ctx: BenchContext, state: State) => Promise<void>;
};
