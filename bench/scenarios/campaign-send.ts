import { constants, generateKeyPairSync, sign } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { startDnsServer } from '../../test/kit/dns.ts';
import { verifiedDomain } from '../../test/kit/domains.ts';
import type { BenchContext, Measurement, Scenario } from '../scenario.ts';
import { startSmtpCounter } from '../smtp-counter.ts';

// Fixed ports (the server's DNS_SERVERS and SMTP_URL are set before the peers exist); not those of
// delivery-rate, so the two never share a server (and a project). Below the ephemeral range.
export const DNS_PORT = 20536;
export const SMTP_PORT = 20526;
export const RECIPIENTS = Number(process.env.BENCH_CAMPAIGN_RECIPIENTS ?? 100_000);
// Unsubscribed contacts beside them: the audience query must leave them out.
const UNSUBSCRIBED = Math.round(RECIPIENTS / 10);

/** Seeds the audience in SQL with the server stopped (through the API it would take minutes). */
export async function seedAudience(ctx: BenchContext): Promise<void> {
  process.stderr.write(`[bench] seeding ${RECIPIENTS} subscribed and ${UNSUBSCRIBED} unsubscribed contacts…\n`);
  await ctx.withServerStopped(async (db) => {
    await db.query(
      `INSERT INTO contacts (project_id, email, subscribed, data)
       SELECT $1, 'campaign-' || g || '@bench.test', g <= $2, jsonb_build_object('name', 'Person ' || g, 'plan', (ARRAY['free', 'pro'])[1 + g % 2])
       FROM generate_series(1, $2::int + $3::int) g
       ON CONFLICT (project_id, email) DO NOTHING`,
      [ctx.project.id, RECIPIENTS, UNSUBSCRIBED],
    );
    await db.exec('ANALYZE contacts');
  });
}

/** Single-thread RSA-2048 PKCS#1 v1.5 SHA-256 signatures per second: the DKIM floor (as delivery-rate measures it). */
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

/** The pid of the process listening on `baseUrl`'s port (the Mailroom child), from /proc. */
function listeningPid(baseUrl: string): number | undefined {
  const port = Number(new URL(baseUrl).port).toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT; state 0A is LISTEN; the inode is the tenth field.
      if (fields[1]?.endsWith(`:${port}`) && fields[3] === '0A') inodes.add(fields[9]!);
    }
  }
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (inodes.has(target.slice('socket:['.length, -1))) return Number(pid);
      }
    } catch {}
  }
  return undefined;
}

/** VmRSS and VmHWM (the process's peak resident set) in MB. */
function memoryOf(pid: number): { rssMb: number; peakMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssMb: Math.round(kb('VmRSS') / 1024), peakMb: Math.round(kb('VmHWM') / 1024) };
  } catch {
    return undefined;
  }
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** The campaign's content: HTML in `body`, or another format with its `source`. */
type CampaignContent = { body: string } | { format: 'mjml'; source: string };

const HTML_CONTENT: CampaignContent = {
  body: '<p>Hi {{name}}, your plan is {{plan}}.</p><p><a href="https://example.com/offer">See the offer</a></p>',
};

/**
 * The same message written in MJML (docs/templates.md): rendered once when the campaign is saved,
 * so it should send at the HTML campaign's rate (the scenarios' ratio, ≥ 0.95).
 */
const MJML_CONTENT: CampaignContent = {
  format: 'mjml',
  source: `<mjml><mj-body><mj-section><mj-column>
  <mj-text>Hi {{name}}, your plan is {{plan}}.</mj-text>
  <mj-button href="https://example.com/offer">See the offer</mj-button>
  <mj-text font-size="12px"><a href="{{ unsubscribeUrl }}">Unsubscribe</a></mj-text>
</mj-column></mj-section></mj-body></mjml>`,
};

/**
 * One campaign to RECIPIENTS subscribed contacts (of RECIPIENTS + 10 %), personalised, MARKETING
 * (tracking and List-Unsubscribe), delivered over SMTP to a local counting relay: seconds from
 * POST /campaigns/{id}/send to SENT, messages per second as a ratio of raw RSA-2048 signing, and
 * the server process's peak RSS.
 */
export const campaignSend: Scenario = campaignScenario('campaign-send', 'one campaign', HTML_CONTENT);

/** The same campaign from MJML: its messages/s over campaign-send's is the cost of MJML per recipient (none expected). */
export const campaignSendMjml: Scenario = campaignScenario('campaign-send-mjml', 'one MJML campaign', MJML_CONTENT);

function campaignScenario(name: string, what: string, content: CampaignContent): Scenario {
  return {
    name,
    description: `${what} to ${RECIPIENTS} subscribed contacts over SMTP: time to SENT, messages/s vs raw RSA-2048 signing, peak RSS`,
    server: { env: { DNS_SERVERS: `127.0.0.1:${DNS_PORT}`, SMTP_URL: `smtp://127.0.0.1:${SMTP_PORT}` } },
    setup: seedAudience,
    run: async (ctx): Promise<Measurement> => {
      const signsPerSecond = rawSigningRate();
      const dns = await startDnsServer({ port: DNS_PORT });
      const relay = await startSmtpCounter(SMTP_PORT);
      const pid = listeningPid(ctx.baseUrl);
      let sampledPeakMb = 0;
      const sampler = setInterval(() => {
        if (pid) sampledPeakMb = Math.max(sampledPeakMb, memoryOf(pid)?.rssMb ?? 0);
      }, 250);
      try {
        const domain = await verifiedDomain(ctx.project, dns);
        const created = await ctx.project.api.post('/campaigns', {
          name: 'Bench campaign',
          subject: 'Hello {{name}}',
          ...content,
          from: `news@${domain.domain}`,
          audienceType: 'ALL',
        });
        if (created.status !== 201) throw new Error(`POST /campaigns answered ${created.status}: ${created.text.slice(0, 300)}`);
        const id = created.body.data.id;
        if (created.body.data.totalRecipients !== RECIPIENTS) throw new Error(`audience of ${created.body.data.totalRecipients}, expected ${RECIPIENTS}`);

        const rssBeforeMb = pid ? memoryOf(pid)?.rssMb : undefined;
        const started = performance.now();
        const sent = await ctx.project.api.post(`/campaigns/${id}/send`);
        if (sent.status !== 200) throw new Error(`send answered ${sent.status}: ${sent.text.slice(0, 300)}`);
        let firstMessageSeconds: number | undefined;
        let campaign = sent.body.data;
        const deadline = Date.now() + 60 * 60_000;
        while (campaign.status === 'SENDING' && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          campaign = (await ctx.project.api.get(`/campaigns/${id}`)).body.data;
          if (firstMessageSeconds === undefined && relay.count() > 0) firstMessageSeconds = (performance.now() - started) / 1000;
        }
        const seconds = (performance.now() - started) / 1000;
        if (campaign.status !== 'SENT') throw new Error(`campaign still ${campaign.status} after ${round1(seconds)} s (${relay.count()} delivered)`);
        const perSecond = relay.count() / seconds;
        const memory = pid ? memoryOf(pid) : undefined;
        return {
          reqPerSec: round1(perSecond),
          unit: 'messages/s',
          delivered: relay.count(),
          sentCount: campaign.sentCount,
          secondsToSent: round1(seconds),
          secondsToFirstMessage: firstMessageSeconds === undefined ? null : round1(firstMessageSeconds),
          rawSignsPerSecond: Math.round(signsPerSecond),
          ratioToRawSigning: Math.round((perSecond / signsPerSecond) * 1000) / 1000,
          serverRssBeforeMb: rssBeforeMb ?? null,
          serverPeakRssMb: Math.max(sampledPeakMb, memory?.rssMb ?? 0) || null,
          serverLifetimePeakRssMb: memory?.peakMb ?? null,
          p50Ms: null,
          p99Ms: null,
          errors: 0,
          non2xx: 0,
          durationSeconds: round1(seconds),
          connections: 1,
        };
      } finally {
        clearInterval(sampler);
        await relay.close();
        await dns.close();
      }
    },
  };
}
