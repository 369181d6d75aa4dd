import { RESERVED_CONNECTIONS, SMTP_CONNECTIONS } from '../../src/delivery/transport.ts';
import { startDnsServer } from '../../test/kit/dns.ts';
import { verifiedDomain } from '../../test/kit/domains.ts';
import type { BenchContext, Measurement, Scenario } from '../scenario.ts';
import { type SmtpCounter, startSmtpCounter } from '../smtp-counter.ts';

// Fixed ports (the server's DNS_SERVERS and SMTP_URL are set before the peers exist), used by no
// other scenario. Below the ephemeral range.
const DNS_PORT = 20538;
const SMTP_PORT = 20528;
const RECIPIENTS = Number(process.env.BENCH_DRAIN_RECIPIENTS ?? 20_000);
/** The relay answers each message after this long, as a receiving MTA on a LAN does. */
const RELAY_DELAY_MS = 20;
/** One transactional /v1/send this often while the campaign drains, from a tenth of it out to its end. */
const TRANSACTIONAL_EVERY_MS = 200;
/** What marketing mail can never use: the connections reserved for transactional mail (docs/streams.md). */
const RESERVED_SHARE = RESERVED_CONNECTIONS / (SMTP_CONNECTIONS + RESERVED_CONNECTIONS);

const round1 = (value: number) => Math.round(value * 10) / 10;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * values.length) - 1)] ?? null;

async function seedAudience(ctx: BenchContext): Promise<void> {
  process.stderr.write(`[bench] seeding ${RECIPIENTS} contacts…\n`);
  await ctx.withServerStopped(async (db) => {
    await db.query(
      `INSERT INTO contacts (project_id, email, subscribed, data)
       SELECT $1, 'drain-' || g || '@bench.test', true, jsonb_build_object('name', 'Person ' || g)
       FROM generate_series(1, $2::int) g
       ON CONFLICT (project_id, email) DO NOTHING`,
      [ctx.project.id, RECIPIENTS],
    );
    await db.exec('ANALYZE contacts');
  });
}

/**
 * One campaign to every contact, from POST /campaigns/{id}/send until the relay has its last
 * message: messages per second. With `transactional`, /v1/send calls are made during the drain.
 */
async function drain(ctx: BenchContext, relay: SmtpCounter, from: string, transactional: boolean): Promise<{ perSecond: number; seconds: number; sends: number }> {
  const created = await ctx.project.api.post('/campaigns', {
    name: `Drain ${transactional ? 'with' : 'without'} transactional mail`,
    subject: 'Winter news for {{name}}',
    body: '<p>Hi {{name}},</p><p>The winter edition: the new dashboard, faster imports, the price list.</p><p><a href="https://example.com/winter">Read it</a></p>',
    from,
    audienceType: 'ALL',
  });
  if (created.status !== 201) throw new Error(`POST /campaigns answered ${created.status}: ${created.text.slice(0, 300)}`);
  const campaignArrived = () => relay.byLabel().get('campaign')?.count ?? 0;
  const before = campaignArrived();
  const started = Date.now();
  const sent = await ctx.project.api.post(`/campaigns/${created.body.data.id}/send`);
  if (sent.status !== 200) throw new Error(`send answered ${sent.status}: ${sent.text.slice(0, 300)}`);
  const out = () => campaignArrived() - before;
  let sends = 0;
  const deadline = Date.now() + 60 * 60_000;
  while (out() < RECIPIENTS && Date.now() < deadline) {
    if (transactional && out() >= RECIPIENTS / 10) {
      const res = await ctx.project.api.post('/v1/send', {
        to: `reset-${sends}-${started}@customers.bench.test`,
        from: from.replace(/^[^@]+/, 'security'),
        subject: 'Reset your password',
        body: '<p>Hello Ada,</p><p>Choose a new password with the link below; it works once, for one hour.</p>',
      });
      if (res.status !== 200) throw new Error(`/v1/send answered ${res.status}: ${res.text.slice(0, 300)}`);
      sends++;
    }
    await new Promise((resolve) => setTimeout(resolve, transactional ? TRANSACTIONAL_EVERY_MS : 100));
  }
  if (out() < RECIPIENTS) throw new Error(`${out()} of ${RECIPIENTS} campaign messages arrived`);
  const seconds = (relay.byLabel().get('campaign')!.lastAt - started) / 1000;
  return { perSecond: RECIPIENTS / seconds, seconds, sends };
}

/**
 * A campaign to RECIPIENTS contacts drained over SMTP (a relay answering in 20 ms) by a ROLE=worker
 * process beside a ROLE=api one, three times: without transactional mail, with a /v1/send every
 * 200 ms from a tenth of it out, and without again. Reports the transactional records' delivery
 * start (acceptance to the hand-off mark, on the database's clock) and the campaign's messages per
 * second with the load over the mean of the two without.
 */
export const streamDrain: Scenario = {
  name: 'stream-drain',
  description: `a ${RECIPIENTS}-recipient campaign over SMTP (20 ms relay) with and without transactional /v1/send load: delivery start p50/p99, campaign throughput ratio`,
  databases: ['postgres'],
  server: { env: { ROLE: 'api', DNS_SERVERS: `127.0.0.1:${DNS_PORT}`, SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}` }, workerProcess: true },
  setup: seedAudience,
  run: async (ctx): Promise<Measurement> => {
    const dns = await startDnsServer({ port: DNS_PORT });
    const relay = await startSmtpCounter(SMTP_PORT, { delayMs: RELAY_DELAY_MS, label: (to) => (to.startsWith('reset-') ? 'transactional' : 'campaign') });
    try {
      const from = `news@${(await verifiedDomain(ctx.project, dns)).domain}`;
      const alone = await drain(ctx, relay, from, false);
      process.stderr.write(`[bench] without transactional mail: ${round1(alone.perSecond)} messages/s\n`);
      const loaded = await drain(ctx, relay, from, true);
      process.stderr.write(`[bench] with ${loaded.sends} transactional messages: ${round1(loaded.perSecond)} messages/s\n`);
      const aloneAgain = await drain(ctx, relay, from, false);
      process.stderr.write(`[bench] without again: ${round1(aloneAgain.perSecond)} messages/s\n`);
      const delivered = async () => (relay.byLabel().get('transactional')?.count ?? 0) >= loaded.sends;
      for (const deadline = Date.now() + 60_000; !(await delivered()) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 200));

      let starts: number[] = [];
      await ctx.withServerStopped(async (db) => {
        const rows = await db.query<{ ms: number }>(
          `SELECT (extract(epoch FROM handed_off_at - created_at) * 1000)::float8 AS ms FROM emails
           WHERE project_id = $1 AND stream = 'transactional' AND handed_off_at IS NOT NULL`,
          [ctx.project.id],
        );
        starts = rows.map((row) => Number(row.ms));
      });
      const baseline = (alone.perSecond + aloneAgain.perSecond) / 2;
      const ratio = loaded.perSecond / baseline;
      return {
        reqPerSec: round1(loaded.perSecond),
        unit: 'messages/s',
        campaignWithoutMsgsPerSec: [round1(alone.perSecond), round1(aloneAgain.perSecond)],
        campaignSeconds: [round1(alone.seconds), round1(loaded.seconds), round1(aloneAgain.seconds)],
        ratioWithToWithout: Math.round(ratio * 1000) / 1000,
        reservedShare: Math.round(RESERVED_SHARE * 1000) / 1000,
        fallWithinReservedShare: ratio >= 1 - RESERVED_SHARE,
        transactionalSent: loaded.sends,
        transactionalStarted: starts.length,
        p50Ms: starts.length ? Math.round(percentile(starts, 50)!) : null,
        p99Ms: starts.length ? Math.round(percentile(starts, 99)!) : null,
        maxMs: starts.length ? Math.round(Math.max(...starts)) : null,
        errors: loaded.sends - starts.length,
        non2xx: 0,
        durationSeconds: round1(alone.seconds + loaded.seconds + aloneAgain.seconds),
        connections: 1,
      };
    } finally {
      await relay.close();
      await dns.close();
    }
  },
};
