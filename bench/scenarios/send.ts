import { execFile } from 'node:child_process';
import { constants, generateKeyPairSync, sign } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type DnsServer, startDnsServer } from '../../test/kit/dns.ts';
import { verifiedDomain } from '../../test/kit/domains.ts';
import type { BenchContext, Measurement, Scenario } from '../scenario.ts';
import { startSmtpCounter } from '../smtp-counter.ts';

// Fixed ports: the server's DNS_SERVERS and SMTP_URL are set before the peers exist. Below
// Linux's ephemeral range (32768-60999), where an outgoing connection may already hold them.
const DNS_PORT = 20535;
const SMTP_PORT = 20525;
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const RECIPIENTS_PER_REQUEST = 50;

type SenderState = { dns: DnsServer; from: string };

/** A verified sender domain in the bench project, its DKIM record served by a local DNS server. */
async function verifiedSender(ctx: BenchContext): Promise<SenderState> {
  const dns = await startDnsServer({ port: DNS_PORT });
  const domain = await verifiedDomain(ctx.project, dns);
  return { dns, from: `bench@${domain.domain}` };
}

const runId = Date.now().toString(36);

/** POST /v1/send accepted per second (records written, delivery queued; delivery runs alongside). */
export const sendAccepted: Scenario<SenderState> = {
  name: 'send-accepted',
  description: 'POST /v1/send, one new recipient per request, delivered to the .eml outbox in the background',
  server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}` } },
  setup: verifiedSender,
  http: (ctx, state) => {
    let n = 0;
    const headers = { authorization: `Bearer ${ctx.project.secretKey}`, 'content-type': 'application/json' };
    const body = (i: number) =>
      JSON.stringify({
        to: `send-${runId}-${i}@bench.test`,
        from: state.from,
        subject: 'Hello {{name}}',
        body: '<p>Hi {{name}}, <a href="https://example.com/a">read</a></p>',
        data: { name: 'Ada' },
      });
    return {
      method: 'POST',
      path: '/v1/send',
      headers,
      body: body(0),
      requests: [{ method: 'POST', path: '/v1/send', headers, setupRequest: (request) => ({ ...request, body: body(++n) }) }],
      expectStatus: 200,
    };
  },
  teardown: async (_ctx, state) => state.dns.close(),
};

/**
 * send-accepted against an API process (ROLE=api), the scale-out deployment of docs/architecture.md: what one
 * API process accepts while delivery runs elsewhere (here: nowhere during the measurement, so the
 * records wait in the queue). PostgreSQL only; the embedded database runs ROLE=all alone.
 */
export const sendAcceptedApiRole: Scenario<SenderState> = {
  ...sendAccepted,
  name: 'send-accepted-api',
  description: 'POST /v1/send, one new recipient per request, to an API process (ROLE=api): records queued, no delivery in this process',
  databases: ['postgres', 'citus'],
  server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}`, ROLE: 'api' } },
};

/**
 * send-accepted in the split deployment on one machine: an API process (ROLE=api) and a worker
 * process (ROLE=worker) on the same PostgreSQL, the worker delivering to the .eml outbox while the
 * API accepts. Both share the machine's cores, as in send-accepted; they do not share an event loop.
 */
export const sendAcceptedSplit: Scenario<SenderState> = {
  ...sendAccepted,
  name: 'send-accepted-split',
  description: 'POST /v1/send, one new recipient per request, to an API process (ROLE=api) while a worker process (ROLE=worker) delivers to the .eml outbox',
  databases: ['postgres'],
  server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}`, ROLE: 'api' }, workerProcess: true },
};

/** Single-thread RSA-2048 PKCS#1 v1.5 SHA-256 signatures per second: the DKIM floor (docs/architecture.md). */
function rawSigningRate(): number {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = Buffer.alloc(1024, 7);
  let signed = 0;
  const started = performance.now();
  while (performance.now() - started < 2000) {
    sign('sha256', data, { key: privateKey, padding: constants.RSA_PKCS1_PADDING });
    signed++;
  }
  return signed / ((performance.now() - started) / 1000);
}

const NODEMAILER_MESSAGES = Number(process.env.BENCH_NODEMAILER_MESSAGES ?? 5_000);
let nodemailerAloneRate: number | undefined;

/**
 * Messages per second that nodemailer alone composes, signs (its `dkim` option) and sends to the
 * same relay, in a child process with no database: the figure delivery-rate is compared with.
 */
async function measureNodemailerAlone(): Promise<{ perSecond: number; sent: number; seconds: number }> {
  const relay = await startSmtpCounter(SMTP_PORT);
  try {
    const script = fileURLToPath(new URL('../nodemailer-alone.ts', import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script, String(SMTP_PORT), String(NODEMAILER_MESSAGES)], { maxBuffer: 1 << 20 });
    const { sent, seconds } = JSON.parse(stdout.trim().split('\n').at(-1)!) as { sent: number; seconds: number };
    if (relay.count() < sent) throw new Error(`the relay counted ${relay.count()} of ${sent} messages`);
    nodemailerAloneRate = sent / seconds;
    return { perSecond: nodemailerAloneRate, sent, seconds };
  } finally {
    await relay.close();
  }
}

/** nodemailer composing, DKIM-signing and sending on its own: delivery-rate's reference. */
export const nodemailerAlone: Scenario = {
  name: 'nodemailer-alone',
  description: `${NODEMAILER_MESSAGES} messages composed, DKIM-signed and sent by nodemailer alone (pooled, 20 connections) to the same local relay, no database`,
  // delivery-rate's server settings, so that the two share a group and run one after the other.
  server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}`, SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}` } },
  run: async (): Promise<Measurement> => {
    const { perSecond, sent, seconds } = await measureNodemailerAlone();
    return {
      reqPerSec: Math.round(perSecond * 10) / 10,
      unit: 'messages/s',
      delivered: sent,
      seconds: Math.round(seconds * 10) / 10,
      p50Ms: null,
      p99Ms: null,
      errors: 0,
      non2xx: 0,
      durationSeconds: Math.round(seconds * 10) / 10,
      connections: 20,
    };
  },
};

/** 20,000 messages through /v1/send to a local SMTP relay: delivered per second vs raw signing. */
export const deliveryRate: Scenario = {
  name: 'delivery-rate',
  description: `${DELIVERIES} messages sent (${RECIPIENTS_PER_REQUEST} recipients per /v1/send) and delivered over SMTP, as a ratio of raw RSA-2048 signing and of nodemailer-alone (measured in the same run)`,
  server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}`, SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}` } },
  run: async (ctx): Promise<Measurement> => {
    const signsPerSecond = rawSigningRate();
    const nodemailerPerSecond = nodemailerAloneRate ?? (await measureNodemailerAlone()).perSecond;
    const sender = await verifiedSender(ctx);
    const relay = await startSmtpCounter(SMTP_PORT);
    try {
      const started = performance.now();
      const requests = Math.ceil(DELIVERIES / RECIPIENTS_PER_REQUEST);
      let next = 0;
      const worker = async () => {
        while (next < requests) {
          const batch = next++;
          const to = Array.from({ length: RECIPIENTS_PER_REQUEST }, (_, i) => `deliver-${runId}-${batch}-${i}@bench.test`);
          const res = await ctx.project.api.post('/v1/send', { to, from: sender.from, subject: 'Hello', body: '<p>Hello <a href="https://example.com/x">there</a></p>' });
          if (res.status !== 200) throw new Error(`/v1/send answered ${res.status}: ${res.text.slice(0, 300)}`);
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
      const acceptedSeconds = (performance.now() - started) / 1000;
      const deadline = Date.now() + 15 * 60_000;
      while (relay.count() < DELIVERIES && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const seconds = (performance.now() - started) / 1000;
      const perSecond = relay.count() / seconds;
      return {
        reqPerSec: Math.round(perSecond * 10) / 10,
        unit: 'messages/s',
        delivered: relay.count(),
        seconds: Math.round(seconds * 10) / 10,
        acceptedSeconds: Math.round(acceptedSeconds * 10) / 10,
        rawSignsPerSecond: Math.round(signsPerSecond),
        ratioToRawSigning: Math.round((perSecond / signsPerSecond) * 1000) / 1000,
        nodemailerAlonePerSecond: Math.round(nodemailerPerSecond * 10) / 10,
        ratioToNodemailerAlone: Math.round((perSecond / nodemailerPerSecond) * 100) / 100,
        p50Ms: null,
        p99Ms: null,
        errors: 0,
        non2xx: 0,
        durationSeconds: Math.round(seconds * 10) / 10,
        connections: 4,
      };
    } finally {
      await relay.close();
      await sender.dns.close();
    }
  },
};
