import { connect, type Socket } from 'node:net';
import { type DnsServer, startDnsServer } from '../../test/kit/dns.ts';
import { verifiedDomain } from '../../test/kit/domains.ts';
import { measureHttp } from '../measure.ts';
import type { BenchContext, Measurement, Scenario } from '../scenario.ts';

// Fixed ports below Linux's ephemeral range: the server's settings are made before the peers exist.
const DNS_PORT = 20536;
const SUBMISSION_PORT = 20587;
/** docs/smtp.md's goal for this bench: 10 clients, each pipelining its commands (RFC 2920). */
const CLIENTS = 10;

type State = { dns: DnsServer; from: string };

const runId = Date.now().toString(36);

const message = (from: string, to: string, n: number) =>
  [
    `From: Bench <${from}>`,
    `To: <${to}>`,
    `Subject: Receipt ${n}`,
    `Message-ID: <bench-${runId}-${n}@client.bench.test>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    `Thank you for order ${n}.`,
    '',
    '- one lamp',
    '- two shades',
    '.',
    '',
  ].join('\r\n');

/**
 * One SMTP client over a socket: after AUTH, each message is one pipelined write (MAIL, RCPT, DATA),
 * then its content and the final dot; a 250 after the dot counts it as accepted. Loops until `until`.
 */
async function submitUntil(from: string, password: string, until: number, next: () => number): Promise<{ accepted: number; refused: number }> {
  const socket: Socket = connect(SUBMISSION_PORT, '127.0.0.1');
  let buffer = '';
  let waiting: ((line: string) => void) | undefined;
  const lines: string[] = [];
  socket.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('latin1');
    let end: number;
    while ((end = buffer.indexOf('\r\n')) !== -1) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (/^\d{3}-/.test(line)) continue; // a continued multi-line reply
      lines.push(line);
    }
    while (waiting && lines.length) {
      const wake = waiting;
      waiting = undefined;
      wake(lines.shift()!);
    }
  });
  const reply = () => (lines.length ? Promise.resolve(lines.shift()!) : new Promise<string>((resolve) => (waiting = resolve)));
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  await reply();
  socket.write('EHLO bench.test\r\n');
  await reply();
  socket.write(`AUTH PLAIN ${Buffer.from(`\0bench\0${password}`).toString('base64')}\r\n`);
  if (!(await reply()).startsWith('235')) throw new Error('AUTH refused');
  let accepted = 0;
  let refused = 0;
  while (Date.now() < until) {
    const n = next();
    const to = `smtp-${runId}-${n}@bench.test`;
    socket.write(`MAIL FROM:<${from}>\r\nRCPT TO:<${to}>\r\nDATA\r\n`);
    const answers = [await reply(), await reply(), await reply()];
    if (!answers[2]!.startsWith('354')) {
      refused++;
      socket.write('RSET\r\n');
      await reply();
      continue;
    }
    socket.write(message(from, to, n));
    if ((await reply()).startsWith('250')) accepted++;
    else refused++;
  }
  socket.end('QUIT\r\n');
  return { accepted, refused };
}

/**
 * Waits until a record sent after the /v1/send measure left the queue (delivery claims the oldest
 * first), then returns the seconds it took.
 */
async function drainDelivery(ctx: BenchContext, from: string): Promise<number> {
  const started = Date.now();
  const marker = await ctx.project.api.post('/v1/send', { to: `drain-${runId}@bench.test`, from, subject: 'Drain', body: '<p>Last.</p>' });
  if (marker.status !== 200) throw new Error(`the marker send got ${marker.status}: ${marker.text}`);
  const id = marker.body.data.emails[0].email as string;
  while ((await ctx.project.api.get(`/emails/${id}`)).body.status === 'QUEUED') await new Promise((resolve) => setTimeout(resolve, 500));
  return Math.round((Date.now() - started) / 100) / 10;
}

/**
 * Messages accepted per second over SMTP submission by one process (10 connections, pipelined), as
 * a ratio to POST /v1/send accepted per second measured just before in the same run, also with 10
 * connections and one recipient each (docs/smtp.md; goal ≥ 0.5).
 */
export const smtpSubmission: Scenario<State> = {
  name: 'smtp-submission',
  description: 'SMTP submission: messages accepted per second over 10 pipelined connections, as a ratio to /v1/send accepted in the same run',
  server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}`, SMTP_SUBMISSION_PORT: String(SUBMISSION_PORT) } },
  setup: async (ctx: BenchContext) => {
    const dns = await startDnsServer({ port: DNS_PORT });
    const domain = await verifiedDomain(ctx.project, dns);
    return { dns, from: `receipts@${domain.domain}` };
  },
  run: async (ctx, state): Promise<Measurement> => {
    let sent = 0;
    const headers = { authorization: `Bearer ${ctx.project.secretKey}`, 'content-type': 'application/json' };
    const body = (i: number) => JSON.stringify({ to: `http-${runId}-${i}@bench.test`, from: state.from, subject: `Receipt ${i}`, body: `<p>Thank you for order ${i}.</p>` });
    const api = await measureHttp(
      ctx.baseUrl,
      {
        method: 'POST',
        path: '/v1/send',
        headers,
        body: body(0),
        requests: [{ method: 'POST', path: '/v1/send', headers, setupRequest: (request) => ({ ...request, body: body(++sent) }) }],
        expectStatus: 200,
      },
      { connections: CLIENTS, durationSeconds: ctx.durationSeconds, warmupSeconds: 1 },
    );
    // Both measures start from an empty queue: the outbox delivery of what /v1/send accepted would
    // otherwise share the process (and the embedded database's one connection) with submission.
    const drained = await drainDelivery(ctx, state.from);
    let n = 0;
    const started = Date.now();
    const until = started + ctx.durationSeconds * 1000;
    const results = await Promise.all(Array.from({ length: CLIENTS }, () => submitUntil(state.from, ctx.project.secretKey, until, () => ++n)));
    const seconds = (Date.now() - started) / 1000;
    const accepted = results.reduce((sum, r) => sum + r.accepted, 0);
    const refused = results.reduce((sum, r) => sum + r.refused, 0);
    const perSecond = Math.round((accepted / seconds) * 10) / 10;
    return {
      reqPerSec: perSecond,
      unit: 'messages/s accepted over SMTP submission',
      p50Ms: null,
      p99Ms: null,
      errors: refused,
      non2xx: 0,
      durationSeconds: Math.round(seconds * 100) / 100,
      connections: CLIENTS,
      sendAcceptedPerSec: api.reqPerSec,
      drainSeconds: drained,
      ratioToSendAccepted: Math.round((perSecond / api.reqPerSec) * 100) / 100,
    };
  },
  teardown: async (_ctx, state) => state.dns.close(),
};
