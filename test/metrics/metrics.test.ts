import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { PACKAGE_ROOT } from '../../src/paths.ts';
import { uniqueEmail } from '../kit/accounts.ts';
import { campaignBody, createCampaign, makeContacts, seedContacts, until, waitForCampaign } from '../kit/campaigns.ts';
import { type CountingRelay, startCountingRelay } from '../kit/counting-relay.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { client } from '../kit/http.ts';
import { projectClient } from '../kit/mailroom.ts';
import { type Receiver, startReceiver } from '../kit/receiver.ts';
import { startTestServer, TEST_DATABASE_URL, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';
import { buildWorkflow, enable, track, waitForExecution } from '../kit/workflows.ts';

// GET /metrics (docs/metrics.md): after known traffic through the real server (sends over SMTP, a
// hard bounce, a workflow, webhook deliveries), the exposition holds exactly those counts.

const TOKEN = randomBytes(24).toString('base64url');

const LETTER = `<h1>Your order has shipped</h1>
<p>Hello {{ email }}, your parcel left our warehouse in Lyon this morning and should arrive within
three working days. You can follow it with the carrier's tracking page.</p>
<ul><li>Linen shirt, size M</li><li>Wool socks (2 pairs)</li><li>Gift card, € 25</li></ul>
<p>ご注文ありがとうございました。商品は三営業日以内に届きます。</p>
<p>Questions? <a href="https://shop.example.com/help/delivery">Read how delivery works</a>.</p>`;

/** The value of one sample of the Prometheus text format, or undefined when it is absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

async function scrape(url: string, token: string | undefined = TOKEN): Promise<string> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe('GET /metrics behind METRICS_TOKEN, after known traffic', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let receiver: Receiver;
  let server: TestServer;
  const bouncing = uniqueEmail('gone');
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({
      reply: (to) => (to.toLowerCase() === bouncing ? { code: 550, message: `5.1.1 <${bouncing}>: Recipient address rejected: User unknown` } : undefined),
    });
    receiver = await startReceiver();
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url, METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE: 'true' });
  });
  after(async () => {
    await server.close();
    await receiver.close();
    await sink.close();
    await dns.close();
  });

  test('refused without its token, with a wrong one and with an API key', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const anonymous = client(server.url);
    for (const key of [undefined, 'not-the-token-but-long-enough-0000', project.secretKey]) {
      const res = await anonymous.get('/metrics', key ? { key } : {});
      assert.equal(res.status, 401, res.text);
      assert.equal(res.body.error.code, 'UNAUTHORIZED');
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assert.doesNotMatch(res.text, /mailroom_/);
    }
    assert.ok(sample(await scrape(`${server.url}/metrics`), 'process_cpu_user_seconds_total')! > 0, 'process metrics are exported');
  });

  test('sends, a hard bounce, a workflow and webhook deliveries are counted once each', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const mailroom = projectClient(server.url, project.secretKey);
    const hook = await mailroom.POST('/webhook-endpoints', { body: { url: receiver.url('/deliveries'), events: ['email.delivered'] } });
    assert.equal(hook.response.status, 201);
    const flow = await buildWorkflow(project.api, { name: 'Welcome', eventName: 'signed-up' }, [{ type: 'UPDATE_CONTACT', config: { data: { welcomed: true } } }]);
    await enable(project.api, flow.id);

    const ids: string[] = [];
    for (const to of [uniqueEmail('ada'), uniqueEmail('grace'), bouncing]) {
      const res = await mailroom.POST('/v1/send', { body: { to, from, subject: 'Your order has shipped', body: LETTER } });
      assert.equal(res.response.status, 200);
      ids.push(res.data!.data.emails[0]!.email);
    }
    const contact = (await track(project.publicApi, uniqueEmail('newcomer'), 'signed-up', { plan: 'team' })).contact;
    const statuses = await Promise.all(ids.map(async (id) => (await waitForStatus(project.api, id, ['DELIVERED', 'BOUNCED', 'FAILED'], 20_000)).status));
    assert.deepEqual(statuses, ['DELIVERED', 'DELIVERED', 'BOUNCED']);
    await waitForExecution(project.api, flow.id, contact, ['COMPLETED']);
    await receiver.waitFor(2, '/deliveries', 20_000);

    // A webhook attempt is counted once its answer is back, just after the receiver saw the request.
    let text = await scrape(`${server.url}/metrics`);
    for (const deadline = Date.now() + 10_000; sample(text, 'mailroom_webhook_deliveries_total', { outcome: 'succeeded' }) !== 2 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      text = await scrape(`${server.url}/metrics`);
    }
    assert.equal(sample(text, 'mailroom_emails_total', { stream: 'transactional', outcome: 'delivered' }), 2);
    assert.equal(sample(text, 'mailroom_emails_total', { stream: 'transactional', outcome: 'bounced' }), 1);
    assert.equal(sample(text, 'mailroom_emails_total', { stream: 'marketing', outcome: 'delivered' }), undefined, 'no marketing mail was sent');
    assert.equal(sample(text, 'mailroom_delivery_latency_seconds_count', { stream: 'transactional' }), 3, 'the relay answered three messages');
    assert.ok(sample(text, 'mailroom_delivery_latency_seconds_sum', { stream: 'transactional' })! > 0);
    assert.equal(sample(text, 'mailroom_delivery_latency_seconds_bucket', { stream: 'transactional', le: '+Inf' }), 3);
    assert.equal(sample(text, 'mailroom_webhook_deliveries_total', { outcome: 'succeeded' }), 2);
    assert.equal(sample(text, 'mailroom_workflow_lag_seconds_count'), 1, 'one execution took its first step');
    assert.equal(sample(text, 'mailroom_http_request_duration_seconds_count', { method: 'POST', route: '/v1/send', status: '200' }), 3);
    assert.equal(sample(text, 'mailroom_http_request_duration_seconds_count', { method: 'GET', route: '/metrics', status: '401' }), 3, 'the refused scrapes of the test before');
    assert.ok(sample(text, 'mailroom_http_request_duration_seconds_count', { method: 'GET', route: '/emails/:id', status: '200' })! >= 3, 'by route pattern, not by path');
    assert.doesNotMatch(text, new RegExp(project.id), 'no project label unless METRICS_PROJECTS names it');
    assert.doesNotMatch(text, new RegExp(bouncing.replace('.', '\\.')), 'no address label');
    for (const queue of ['delivery', 'workflow_executions', 'webhook_messages', 'imports']) {
      assert.notEqual(sample(text, 'mailroom_queue_depth', { queue }), undefined, `the ${queue} queue's depth`);
      assert.notEqual(sample(text, 'mailroom_queue_oldest_age_seconds', { queue }), undefined);
    }
    assert.equal(sample(text, 'mailroom_queue_depth', { queue: 'delivery' }), 0, 'every record was settled');
    // The Grafana dashboard (docs/ops/grafana-mailroom.json) queries only metrics that exist.
    const dashboard = readFileSync(join(PACKAGE_ROOT, 'docs', 'ops', 'grafana-mailroom.json'), 'utf8');
    for (const name of new Set(dashboard.match(/\b(mailroom|process|nodejs)_[a-z0-9_]+/g))) {
      if (name === 'mailroom_db_pool_connections' && !TEST_DATABASE_URL) continue;
      assert.match(text, new RegExp(`^${name}[{ ]`, 'm'), `the dashboard's ${name} is exported`);
    }
    const pool = sample(text, 'mailroom_db_pool_connections', { pool: 'background', state: 'idle' });
    if (TEST_DATABASE_URL) assert.ok(pool !== undefined && pool >= 0, 'PostgreSQL pool use');
    else assert.equal(pool, undefined, 'the embedded database has no pool');
  });
});

describe('GET /metrics on METRICS_PORT while a campaign drains', () => {
  let dns: DnsServer;
  let relay: CountingRelay;
  let server: TestServer;
  const watched = randomUUID();
  before(async () => {
    dns = await startDnsServer();
    // Each message answered after 100 ms: 120 recipients over 20 connections take about 0.6 s.
    relay = await startCountingRelay({ delayMs: 100 });
    // SEND_RATE_PER_SECOND spreads the campaign over about four seconds: unpaced, the worker can
    // hand all 120 to the relay at once, between two scrapes, and no falling depth is there to see.
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: relay.url, METRICS_PORT: '0', METRICS_PROJECTS: watched, SEND_RATE_PER_SECOND: '30' });
  });
  after(async () => {
    await server.close();
    await relay.close();
    await dns.close();
  });

  test('served on its own port only; the delivery queue depth falls to zero as the campaign drains', async () => {
    assert.ok(server.metricsUrl, 'METRICS_PORT opens a listener');
    assert.equal((await client(server.url).get('/metrics')).status, 404, 'not on the API port');
    assert.equal((await fetch(server.metricsUrl.replace('/metrics', '/health'))).status, 404, 'the metrics port serves /metrics only');
    const idle = await scrape(server.metricsUrl, undefined);
    assert.equal(sample(idle, 'mailroom_project_queue_depth', { project: watched, queue: 'delivery' }), 0, 'METRICS_PROJECTS gets series of its own');

    const { project, from } = await projectWithSender(server.url, dns);
    const recipients = 120;
    await seedContacts(project.api, makeContacts(`drain-${randomBytes(3).toString('hex')}`, recipients));
    const campaign = await createCampaign(project.api, campaignBody(from, { name: 'Autumn catalogue', subject: 'Our autumn catalogue, {{name ?? "friend"}}' }));
    const sent = await project.api.post(`/campaigns/${campaign.id}/send`);
    assert.equal(sent.status, 200, sent.text);

    const depths: number[] = [];
    const deadline = Date.now() + 60_000;
    for (;;) {
      const depth = sample(await scrape(server.metricsUrl, undefined), 'mailroom_queue_depth', { queue: 'delivery' })!;
      depths.push(depth);
      if ((depth === 0 && relay.messages.length >= recipients) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
    const positive = depths.filter((d) => d > 0);
    assert.ok(positive.length >= 2, `the queue was seen while it drained: ${depths.join(', ')}`);
    assert.ok(positive[0]! <= recipients);
    assert.ok(positive.at(-1)! < positive[0]!, `the depth fell: ${depths.join(', ')}`);
    assert.equal(depths.at(-1), 0, `the queue emptied: ${depths.join(', ')}`);
    await waitForCampaign(project.api, campaign.id, ['SENT']);
    const text = await scrape(server.metricsUrl, undefined);
    assert.equal(sample(text, 'mailroom_emails_total', { stream: 'marketing', outcome: 'delivered' }), recipients);
    // The latency is observed once the outcome is stored: the last one may follow SENT by a moment.
    await until(
      'every delivery latency observed',
      async () => sample(await scrape(server.metricsUrl!, undefined), 'mailroom_delivery_latency_seconds_count', { stream: 'marketing' }) === recipients,
      10_000,
    );
  });
});

describe('metrics configuration', () => {
  const base = { DATA_DIR: '/tmp/mailroom-config-test', SESSION_SECRET: 'x'.repeat(32) };
  test('a short token, METRICS_PORT equal to PORT and too many projects stop start-up with the variable named', () => {
    assert.throws(() => loadConfig({ ...base, METRICS_TOKEN: 'short' }), /METRICS_TOKEN: must be at least 24 characters/);
    assert.throws(() => loadConfig({ ...base, PORT: '9000', METRICS_PORT: '9000' }), /METRICS_PORT: must differ from PORT/);
    const many = Array.from({ length: 21 }, () => randomUUID()).join(',');
    assert.throws(() => loadConfig({ ...base, METRICS_PROJECTS: many }), /METRICS_PROJECTS: at most 20 projects/);
    assert.throws(() => loadConfig({ ...base, METRICS_PROJECTS: 'acme' }), /METRICS_PROJECTS/);
    const config = loadConfig({ ...base, METRICS_TOKEN: TOKEN, METRICS_PROJECTS: `${watchedCase()}` });
    assert.deepEqual(config.metrics, { token: TOKEN, port: undefined, projects: [watchedCase().toLowerCase()] });
    assert.deepEqual(loadConfig(base).metrics, { token: undefined, port: undefined, projects: [] }, 'no /metrics by default');
  });
});

const watchedCase = () => 'A3B1C2D4-0000-4000-8000-00000000000F';
