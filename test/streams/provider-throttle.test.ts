import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { takeProviderTokens } from '../../src/deliverability/provider-rates.queries.ts';
import { until } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// docs/streams.md, "Per-provider throttles": a provider that defers with 421 4.7.28 gets the
// project's stream more slowly; other providers are untouched; no message is lost.

const GMAIL_DOMAIN = 'gmail-hosted.example.org';
const MICROSOFT_DOMAIN = 'office-hosted.example.org';
const OTHER_DOMAIN = 'small-isp.example.org';
/** The relay accepts this many Gmail recipients a second, then answers 421 4.7.28. */
const N = 10;
const MAX_RATE = 40;

describe('per-provider throttles: 421 / 4.7.x deferrals slow one provider (docs/streams.md)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  const gmailAccepted: number[] = [];
  let gmailDeferred = 0;
  before(async () => {
    sink = await startSmtpSink({
      reply: (to) => {
        if (!to.toLowerCase().endsWith(`@${GMAIL_DOMAIN}`)) return undefined;
        const now = Date.now();
        if (gmailAccepted.filter((at) => at > now - 1_000).length >= N) {
          gmailDeferred++;
          return { code: 421, message: '4.7.28 Our system has detected an unusual rate of unsolicited mail originating from your IP address. Try again later.' };
        }
        gmailAccepted.push(now);
        return undefined;
      },
    });
    ({ server, dns } = await startTestServerWithDns({
      SMTP_URL: sink.url,
      PROVIDER_RATE_MAX_PER_SECOND: String(MAX_RATE),
      PROVIDER_RATE_MIN_PER_SECOND: '1',
      PROVIDER_RATE_INCREASE: '0.05',
    }));
    dns.set(GMAIL_DOMAIN, 'MX', [
      { exchange: 'alt1.gmail-smtp-in.l.google.com', priority: 20 },
      { exchange: 'gmail-smtp-in.l.google.com', priority: 5 },
    ]);
    dns.set(MICROSOFT_DOMAIN, 'MX', [{ exchange: 'office-hosted-example-org.mail.protection.outlook.com', priority: 0 }]);
    dns.set(OTHER_DOMAIN, 'MX', [{ exchange: 'mx1.small-isp.example.org', priority: 10 }]);
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  test('the deferring provider is slowed and recovers no faster than it allows; the others keep the full rate; every message arrives once', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const recipients = [
      ...Array.from({ length: 120 }, (_, i) => `customer${i}@${GMAIL_DOMAIN}`),
      ...Array.from({ length: 40 }, (_, i) => `colleague${i}@${MICROSOFT_DOMAIN}`),
      ...Array.from({ length: 40 }, (_, i) => `neighbour${i}@${OTHER_DOMAIN}`),
    ];
    for (let i = 0; i < recipients.length; i += 50) {
      const res = await project.api.post('/v1/send', {
        to: recipients.slice(i, i + 50),
        from,
        subject: 'Your order has shipped — 您的订单已发货',
        body: '<p>Your parcel is on its way.</p><ul><li>Tracking: ZX-2291</li><li>Expected: Tuesday</li></ul><p>Ваша посылка в пути.</p>',
      });
      assert.equal(res.status, 200, res.text);
    }
    const received = () => new Set(sink.messages.flatMap((m) => m.envelope.to.map((to) => to.toLowerCase())));
    await until('every message', () => received().size === recipients.length, 120_000);
    const counts = new Map<string, number>();
    for (const message of sink.messages) for (const to of message.envelope.to) counts.set(to.toLowerCase(), (counts.get(to.toLowerCase()) ?? 0) + 1);
    assert.ok(
      recipients.every((to) => counts.get(to) === 1),
      'each recipient got its message once',
    );

    const view = await project.api.get('/deliverability');
    assert.equal(view.status, 200, view.text);
    const row = (provider: string) => view.body.providers.find((p: { provider: string; stream: string }) => p.provider === provider && p.stream === 'transactional');
    const gmail = row('gmail');
    assert.ok(gmail, JSON.stringify(view.body));
    assert.ok(gmail.throttled && gmail.ratePerSecond < MAX_RATE, `gmail at ${gmail.ratePerSecond}/s`);
    assert.ok(gmail.ratePerSecond <= 1.5 * N, `gmail's rate settled near or under what it accepts: ${gmail.ratePerSecond}/s`);
    assert.equal(gmail.deferralsLastHour, gmailDeferred);
    assert.ok(gmail.lastDeferralAt);
    for (const provider of ['microsoft', 'other']) {
      assert.deepEqual([row(provider)?.ratePerSecond, row(provider)?.throttled, row(provider)?.deferralsLastHour], [MAX_RATE, false, 0], provider);
    }
    // The marketing stream of the same project was never deferred: it has no state of its own yet.
    assert.equal(view.body.providers.filter((p: { stream: string }) => p.stream === 'marketing').length, 0);
    // Kept in the database: another worker taking from the same bucket sees the lowered rate.
    const seen = await takeProviderTokens(server.deps.db, { projectId: project.id, stream: 'transactional', provider: 'gmail' }, 0, MAX_RATE);
    assert.equal(Math.round(seen.rate * 100) / 100, gmail.ratePerSecond);
    // Slowed, the stream stopped hammering the provider: far fewer deferrals than messages.
    assert.ok(gmailDeferred < 120, `${gmailDeferred} deferrals for 120 messages`);
    // Deferred records went back to the queue and were delivered: none failed or was dropped.
    const records = await server.deps.db.query<{ status: string; n: number }>('SELECT status, count(*)::int AS n FROM emails WHERE project_id = $1 GROUP BY status', [project.id]);
    assert.deepEqual(
      records.map((r) => [r.status, Number(r.n)]),
      [['DELIVERED', recipients.length]],
    );
  });
});
