import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/** Roles a process can take (docs/architecture.md). `all` runs the API and the worker in one process. */
export const ROLES = ['all', 'api', 'worker'] as const;
export type Role = (typeof ROLES)[number];

const booleanString = z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((value) => value === 'true' || value === '1' || value === 'yes');

const nonNegativeInt = z.coerce.number().int().min(0);
const positiveInt = z.coerce.number().int().min(1);
const port = z.coerce.number().int().min(0).max(65535);

const postgresUrl = z
  .string()
  .url()
  .refine((url) => /^postgres(ql)?:\/\//.test(url), 'must start with postgres:// or postgresql://');

const smtpUrl = z
  .string()
  .url()
  .refine((url) => /^smtps?:\/\//.test(url), 'must start with smtp:// or smtps://');

/**
 * SYSTEM_FROM: `address` or `Name <address>`, the sender of the server's own mail (docs/decisions/sending.md).
 * Its domain is a host name of two labels or more, so a DKIM key can be published under it.
 */
const systemFrom = z
  .string()
  .trim()
  .transform((raw, ctx) => {
    const match = /^(?:"?([^"<>\r\n]*?)"?\s*<([^<>\s]+)>|([^<>\s]+))$/.exec(raw);
    const address = (match?.[2] ?? match?.[3] ?? '').toLowerCase();
    const domain = address.slice(address.lastIndexOf('@') + 1);
    if (!z.email().safeParse(address).success || !/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]*[a-z0-9]$/.test(domain)) {
      ctx.addIssue({ code: 'custom', message: 'expected an address such as no-reply@mail.example.com or "Mailroom <no-reply@mail.example.com>"' });
      return z.NEVER;
    }
    return { address, name: match?.[1]?.trim() || 'Mailroom', domain };
  });

/**
 * SPF_MECHANISMS: the relay's SPF mechanisms (RFC 7208 §5), separated by spaces or commas. `all`
 * is not one of them: the record ends with `~all` itself.
 */
const SPF_HOST = '[A-Za-z0-9_%{}.-]+';
const SPF_MECHANISM = new RegExp(
  `^[+?~-]?(include:${SPF_HOST}|exists:${SPF_HOST}|(a|mx)(:${SPF_HOST})?(/\\d{1,2})?(//\\d{1,3})?|ptr(:${SPF_HOST})?|ip4:[0-9.]+(/\\d{1,2})?|ip6:[0-9A-Fa-f:.]+(/\\d{1,3})?)$`,
);
const spfMechanisms = z
  .string()
  .optional()
  .transform((raw) => (raw ? raw.split(/[\s,]+/).filter(Boolean) : []))
  .pipe(
    z.array(
      z.string().refine((mechanism) => {
        if (!SPF_MECHANISM.test(mechanism)) return false;
        const ip = /^[+?~-]?ip([46]):([^/]+)/.exec(mechanism);
        return !ip || isIP(ip[2]!) === Number(ip[1]);
      }, 'expected SPF mechanisms such as include:amazonses.com or ip4:203.0.113.7 (without all)'),
    ),
  );

const dnsServer = z.string().regex(/^(\[[0-9a-fA-F:]+\]|[0-9a-fA-F:.]+|[a-zA-Z0-9.-]+)(:\d{1,5})?$/, 'expected host[:port]');

/** Projects that METRICS_PROJECTS may give series of their own (each multiplies the series). */
export const MAX_METRICS_PROJECTS = 20;
/** A key-encryption key: 32 bytes as 64 hex digits or 43 base64url characters (docs/security.md). */
const secretsKey = z
  .string()
  .trim()
  .refine((raw) => /^[0-9a-f]{64}$/i.test(raw) || /^[A-Za-z0-9_-]{43}$/.test(raw), 'must be 32 bytes: 64 hex digits or 43 base64url characters');

/** Every environment variable Mailroom reads, with its default (docs/architecture.md). */
const environmentSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_DISTRIBUTION: z.enum(['none', 'citus']).default('none'),
  PUBLIC_URL: z.string().url().optional(),
  SMTP_URL: smtpUrl.optional(),
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((raw) =>
      raw
        ? raw
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean)
        : [],
    )
    .pipe(z.array(dnsServer)),
  SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SECRETS_KEY: secretsKey.optional(),
  SECRETS_KEY_PREVIOUS: secretsKey.optional(),
  SIGNUP_ENABLED: booleanString.default(true),
  RATE_LIMIT_PER_MINUTE: positiveInt.default(1000),
  IDEMPOTENCY_TTL_HOURS: positiveInt.default(24),
  DOMAIN_CHECK_INTERVAL_SECONDS: positiveInt.default(300),
  SEGMENT_REFRESH_INTERVAL_SECONDS: positiveInt.default(300),
  SEND_RATE_PER_SECOND: nonNegativeInt.default(0),
  // docs/decisions/campaigns.md, "Sending": contacts whose records one transaction of a campaign's start makes.
  CAMPAIGN_AUDIENCE_BATCH: positiveInt.default(10_000),
  // docs/decisions/campaigns.md, "Counters at scale": a campaign of this many recipients or more has its counters reused for a few seconds.
  CAMPAIGN_COUNTS_EXACT_BELOW: positiveInt.default(10_000),
  // docs/streams.md, per-provider throttles: the rate a provider starts at and never exceeds, the
  // floor a deferral never takes it under, and what each delivered message adds back.
  PROVIDER_RATE_MAX_PER_SECOND: positiveInt.default(1000),
  PROVIDER_RATE_MIN_PER_SECOND: z.coerce.number().positive().default(0.5),
  PROVIDER_RATE_INCREASE: z.coerce.number().positive().default(0.05),
  WEBHOOK_ALLOW_PRIVATE: booleanString.default(false),
  // docs/decisions/webhook-endpoints.md: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, 10 h (3 days); tests shorten it.
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('5,300,1800,7200,18000,36000,36000,36000')
    .transform((raw) => raw.split(',').map((s) => s.trim()))
    .pipe(
      z
        .array(
          z.coerce
            .number<string>()
            .positive()
            .max(7 * 24 * 3600, 'at most 7 days per step'),
        )
        .min(1)
        .max(20),
    ),
  AUTO_DISABLE: booleanString.default(false),
  ROLE: z.enum(ROLES).default('all'),
  SPF_MECHANISMS: spfMechanisms,
  SYSTEM_FROM: systemFrom.optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SHUTDOWN_TIMEOUT_SECONDS: positiveInt.default(30),
  // SMTP listeners (docs/smtp.md): each off unless its port is set.
  SMTP_SUBMISSION_PORT: port.optional(),
  SMTP_SUBMISSIONS_PORT: port.optional(),
  SMTP_INBOUND_PORT: port.optional(),
  SMTP_TLS_CERT: z.string().min(1).optional(),
  SMTP_TLS_KEY: z.string().min(1).optional(),
  SMTP_HOSTNAME: z
    .string()
    .regex(/^[A-Za-z0-9.-]+$/, 'expected a host name')
    .optional(),
  SMTP_MAX_MESSAGE_BYTES: positiveInt.default(26_214_400),
  SMTP_ALLOW_INSECURE_AUTH: booleanString.default(false),
  INBOUND_RETENTION_DAYS: positiveInt.default(30),
  // docs/metrics.md: GET /metrics is served only behind a bearer token, on a port of its own, or both.
  METRICS_TOKEN: z
    .string()
    .min(24, 'must be at least 24 characters')
    .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces')
    .optional(),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  METRICS_PROJECTS: z
    .string()
    .optional()
    .transform((raw) =>
      raw
        ? [
            ...new Set(
              raw
                .split(',')
                .map((s) => s.trim().toLowerCase())
                .filter(Boolean),
            ),
          ]
        : [],
    )
    .pipe(z.array(z.uuid('expected project ids (UUIDs)')).max(MAX_METRICS_PROJECTS, `at most ${MAX_METRICS_PROJECTS} projects`)),
});

export type Config = Readonly<{
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** `citus`: migrations distribute the tables by project over a Citus cluster (docs/architecture.md). */
  databaseDistribution: 'none' | 'citus';
  publicUrl: string;
  smtpUrl: string | undefined;
  dnsServers: readonly string[];
  sessionSecret: string;
  /** Encrypts secrets at rest (src/auth/secrets.ts): SECRETS_KEY, or generated once and kept in DATA_DIR. */
  secretsKey: string;
  /** The key before a rotation: still decrypts, never encrypts (docs/security.md). */
  secretsKeyPrevious: string | undefined;
  signupEnabled: boolean;
  rateLimitPerMinute: number;
  idempotencyTtlHours: number;
  domainCheckIntervalSeconds: number;
  segmentRefreshIntervalSeconds: number;
  sendRatePerSecond: number;
  /** Contacts per transaction when a campaign's audience is fixed (docs/decisions/campaigns.md). */
  campaignAudienceBatch: number;
  /** Below this many recipients a campaign's counters are counted on every read (docs/decisions/campaigns.md). */
  campaignCountsExactBelow: number;
  /** Per-provider throttles (docs/streams.md): messages per second per project, stream and provider. */
  providerRate: { maxPerSecond: number; minPerSecond: number; increase: number };
  webhookAllowPrivate: boolean;
  /** Seconds before each retry of a failed webhook delivery (±10 % jitter is added). */
  webhookRetrySchedule: readonly number[];
  /** Disable a project whose bounce or complaint rate crosses the critical threshold (docs/decisions/reputation.md). */
  autoDisable: boolean;
  role: Role;
  /** The relay's SPF mechanisms, in order (docs/architecture.md); empty when unset. */
  spfMechanisms: readonly string[];
  /** The sender of the server's own mail, whose domain's DKIM key signs it (docs/decisions/sending.md); unset: unsigned. */
  systemFrom: Readonly<{ address: string; name: string; domain: string }> | undefined;
  logLevel: string;
  shutdownTimeoutSeconds: number;
  /** The SMTP listeners (docs/smtp.md); a port of 0 takes a free one (tests). */
  smtp: Readonly<{
    submissionPort: number | undefined;
    submissionsPort: number | undefined;
    inboundPort: number | undefined;
    /** PEM certificate and key, read at start-up; STARTTLS and implicit TLS need them. */
    tls: Readonly<{ cert: Buffer; key: Buffer }> | undefined;
    /** The name in greetings and the MX target of domain records. */
    hostname: string;
    maxMessageBytes: number;
    allowInsecureAuth: boolean;
    /** Days a received inbound message is kept (docs/inbound.md). */
    inboundRetentionDays: number;
  }>;
  /** GET /metrics (docs/metrics.md): its bearer token, its own port, and the projects with series of their own. */
  metrics: Readonly<{ token: string | undefined; port: number | undefined; projects: readonly string[] }>;
}>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the environment once into a frozen, typed Config. A bad value throws a
 * ConfigError whose message names the variable, so start-up stops with a clear cause.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const blankAsUnset = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = environmentSchema.safeParse(blankAsUnset);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.data;
  if (e.ROLE !== 'all' && !e.DATABASE_URL) {
    // The embedded database belongs to one process, so an API process and a worker cannot share it.
    throw new ConfigError('Invalid configuration: ROLE: api and worker need a shared PostgreSQL (set DATABASE_URL); the embedded database runs with ROLE=all');
  }
  if (e.DATABASE_DISTRIBUTION === 'citus' && !e.DATABASE_URL) {
    throw new ConfigError('Invalid configuration: DATABASE_DISTRIBUTION: citus needs DATABASE_URL (the coordinator)');
  }
  if (e.SMTP_SUBMISSIONS_PORT !== undefined && !(e.SMTP_TLS_CERT && e.SMTP_TLS_KEY)) {
    throw new ConfigError('Invalid configuration: SMTP_SUBMISSIONS_PORT: implicit TLS needs SMTP_TLS_CERT and SMTP_TLS_KEY');
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    throw new ConfigError('Invalid configuration: METRICS_PORT: must differ from PORT (unset it to serve /metrics on PORT behind METRICS_TOKEN)');
  }
  const dataDir = resolve(e.DATA_DIR);
  return Object.freeze({
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databaseDistribution: e.DATABASE_DISTRIBUTION,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    smtpUrl: e.SMTP_URL,
    dnsServers: Object.freeze([...e.DNS_SERVERS]),
    sessionSecret: e.SESSION_SECRET ?? persistedSessionSecret(dataDir),
    secretsKey: e.SECRETS_KEY ?? persistedSecret(dataDir, 'secrets-key'),
    secretsKeyPrevious: e.SECRETS_KEY_PREVIOUS,
    signupEnabled: e.SIGNUP_ENABLED,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    idempotencyTtlHours: e.IDEMPOTENCY_TTL_HOURS,
    domainCheckIntervalSeconds: e.DOMAIN_CHECK_INTERVAL_SECONDS,
    segmentRefreshIntervalSeconds: e.SEGMENT_REFRESH_INTERVAL_SECONDS,
    sendRatePerSecond: e.SEND_RATE_PER_SECOND,
    campaignAudienceBatch: e.CAMPAIGN_AUDIENCE_BATCH,
    campaignCountsExactBelow: e.CAMPAIGN_COUNTS_EXACT_BELOW,
    providerRate: Object.freeze({
      maxPerSecond: e.PROVIDER_RATE_MAX_PER_SECOND,
      minPerSecond: Math.min(e.PROVIDER_RATE_MIN_PER_SECOND, e.PROVIDER_RATE_MAX_PER_SECOND),
      increase: e.PROVIDER_RATE_INCREASE,
    }),
    webhookAllowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
    webhookRetrySchedule: Object.freeze([...e.WEBHOOK_RETRY_SCHEDULE]),
    autoDisable: e.AUTO_DISABLE,
    role: e.ROLE,
    spfMechanisms: Object.freeze([...e.SPF_MECHANISMS]),
    systemFrom: e.SYSTEM_FROM && Object.freeze(e.SYSTEM_FROM),
    logLevel: e.LOG_LEVEL,
    shutdownTimeoutSeconds: e.SHUTDOWN_TIMEOUT_SECONDS,
    smtp: Object.freeze({
      submissionPort: e.SMTP_SUBMISSION_PORT,
      submissionsPort: e.SMTP_SUBMISSIONS_PORT,
      inboundPort: e.SMTP_INBOUND_PORT,
      tls: smtpTls(e.SMTP_TLS_CERT, e.SMTP_TLS_KEY),
      hostname: e.SMTP_HOSTNAME ?? new URL(e.PUBLIC_URL ?? 'http://localhost').hostname,
      maxMessageBytes: e.SMTP_MAX_MESSAGE_BYTES,
      allowInsecureAuth: e.SMTP_ALLOW_INSECURE_AUTH,
      inboundRetentionDays: e.INBOUND_RETENTION_DAYS,
    }),
    metrics: Object.freeze({ token: e.METRICS_TOKEN, port: e.METRICS_PORT, projects: Object.freeze([...e.METRICS_PROJECTS]) }),
  });
}

/** The PEM files of SMTP_TLS_CERT and SMTP_TLS_KEY, both or neither. */
function smtpTls(certFile: string | undefined, keyFile: string | undefined): Readonly<{ cert: Buffer; key: Buffer }> | undefined {
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new ConfigError('Invalid configuration: SMTP_TLS_CERT and SMTP_TLS_KEY go together');
  try {
    return Object.freeze({ cert: readFileSync(certFile), key: readFileSync(keyFile) });
  } catch (error) {
    throw new ConfigError(`Invalid configuration: SMTP_TLS_CERT / SMTP_TLS_KEY: ${(error as Error).message}`);
  }
}

/** docs/architecture.md: without SESSION_SECRET, one is generated on first start and kept in DATA_DIR. */
function persistedSessionSecret(dataDir: string): string {
  return persistedSecret(dataDir, 'session-secret');
}

/** A random 32-byte secret (base64url) generated on first start and kept in DATA_DIR/`name`. */
function persistedSecret(dataDir: string, name: string): string {
  const file = join(dataDir, name);
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    mkdirSync(dataDir, { recursive: true });
    const secret = randomBytes(32).toString('base64url');
    try {
      writeFileSync(file, secret, { mode: 0o600, flag: 'wx' });
      return secret;
    } catch (error) {
      // Another process won the race to create it: use theirs.
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
      throw error;
    }
  }
}

/** The configuration of a command (the server, migrations, secret rotation): a bad value prints its message and exits 78 (EX_CONFIG). */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
}
