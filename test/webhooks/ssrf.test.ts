import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { createOutboundClient } from '../../src/outbound/index.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { client } from '../kit/http.ts';
import { type Receiver, startReceiver } from '../kit/receiver.ts';
import { prepareEnvironment } from '../kit/server.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The attempts logged for an endpoint's messages, once at least `count` exist. */
async function attemptsOf(project: TestProject, endpointId: string, count: number) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await project.api.get(`/webhook-endpoints/${endpointId}/messages`);
    const attempts = res.body.data.flatMap((m: any) => m.attempts);
    if (attempts.length >= count) return { messages: res.body.data, attempts };
    if (Date.now() > deadline) throw new Error(`only ${attempts.length} attempts logged: ${JSON.stringify(res.body.data)}`);
    await sleep(100);
  }
}

const PRIVATE_LITERALS = ['127.0.0.1', '[::1]', '[::ffff:10.0.0.1]', '[64:ff9b::a00:1]', '169.254.169.254'];

describe('webhook endpoints refuse private targets (docs/decisions/webhook-endpoints.md) at creation and at each delivery', () => {
  let dns: DnsServer;
  let env: Record<string, string>;
  let cleanup: () => Promise<void>;
  let server: RunningServer | undefined;
  let v4: Receiver;
  let v6: Receiver;
  let publicHost: Receiver;
  before(async () => {
    dns = await startDnsServer({ ttl: 0 });
    v4 = await startReceiver();
    v6 = await startReceiver(undefined, '::1');
    // Stands for a host on the internet (the guard is told to let 127.0.0.2 through below); it
    // redirects every delivery to the loopback receiver.
    publicHost = await startReceiver(() => ({ status: 302, headers: { location: v4.url('/stolen') } }), '127.0.0.2');
    ({ env, cleanup } = await prepareEnvironment({ DNS_SERVERS: dns.address, WEBHOOK_RETRY_SCHEDULE: '3600' }));
  });
  after(async () => {
    await server?.close();
    await cleanup?.();
    for (const receiver of [v4, v6, publicHost]) await receiver?.close();
    await dns.close();
  });

  test('at creation and update: literal private forms, names resolving to them and plain http are a 422', async () => {
    server = await startServer(loadConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: 'false' }));
    const project = await createProject(server.url);
    dns.set('intranet.example.test', 'A', ['10.1.2.3']);
    dns.set('metadata.example.test', 'A', ['169.254.169.254']);
    dns.set('loop6.example.test', 'AAAA', ['::1']);
    dns.set('hooks.example.test', 'A', ['93.184.215.14']);
    const refused = [
      ...PRIVATE_LITERALS.map((host) => `https://${host}/webhooks`),
      'https://intranet.example.test/webhooks',
      'https://metadata.example.test/latest/meta-data/',
      'https://loop6.example.test/webhooks',
      'https://localhost/webhooks',
    ];
    for (const url of refused) {
      const res = await project.api.post('/webhook-endpoints', { url, events: ['*'] });
      assert.equal(res.status, 422, `${url}: ${res.text}`);
      assert.equal(res.body.error.errors[0].field, 'url');
      assert.match(res.body.error.errors[0].message, /private or loopback/, url);
    }
    const plain = await project.api.post('/webhook-endpoints', { url: 'http://hooks.example.test/webhooks', events: ['*'] });
    assert.equal(plain.status, 422, 'http is refused unless WEBHOOK_ALLOW_PRIVATE');

    const accepted = await project.api.post('/webhook-endpoints', { url: 'https://hooks.example.test/webhooks', events: ['*'] });
    assert.equal(accepted.status, 201, accepted.text);
    const patched = await project.api.patch(`/webhook-endpoints/${accepted.body.id}`, { url: 'https://intranet.example.test/x' });
    assert.equal(patched.status, 422);
    assert.equal((await project.api.get(`/webhook-endpoints/${accepted.body.id}`)).body.url, 'https://hooks.example.test/webhooks');
    assert.deepEqual((await project.api.get('/webhook-endpoints')).body.data.length, 1);
  });

  test('at delivery: a name that later resolves to a private form is refused and logged, never connected to', async () => {
    const project = await createProject(server!.url);
    dns.set('rebind.example.test', 'A', ['93.184.215.14']);
    const endpoint = (await project.api.post('/webhook-endpoints', { url: `https://rebind.example.test:${v4.port}/hook`, events: ['*'] })).body;
    // [record type, answer, what the refusal names]. (::ffff:a00:1 is ::ffff:10.0.0.1: the test DNS
    // server encodes only the hexadecimal form.)
    const answers: Array<[type: 'A' | 'AAAA', address: string, named: string]> = [
      ['A', '127.0.0.1', 'loopback'],
      ['AAAA', '::1', 'loopback'],
      ['AAAA', '::ffff:a00:1', 'IPv4-mapped 10.0.0.1'],
      ['AAAA', '64:ff9b::a00:1', 'NAT64 10.0.0.1'],
      ['A', '169.254.169.254', 'linkLocal'],
    ];
    for (const [i, [type, address, named]] of answers.entries()) {
      dns.remove('rebind.example.test');
      dns.set('rebind.example.test', type, [address]);
      await project.publicApi.post('/v1/track', { email: uniqueEmail('rebind'), event: 'order.shipped', data: { step: i } });
      const { attempts } = await attemptsOf(project, endpoint.id, i + 1);
      const latest = attempts.sort((a: any, b: any) => Date.parse(b.at) - Date.parse(a.at))[0];
      assert.equal(latest.statusCode, null);
      assert.match(latest.response, /^Refused: rebind\.example\.test resolves to .* private or loopback address/, `${address}: ${JSON.stringify(attempts)}`);
      assert.ok(latest.response.includes(named), `${address}: ${latest.response}`);
    }
    assert.deepEqual([v4.received.length, v6.received.length], [0, 0]);
  });

  test('at delivery: endpoints stored while WEBHOOK_ALLOW_PRIVATE was true are refused once it is false; a redirect is not followed', async () => {
    await server!.close();
    server = await startServer(loadConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: 'true' }));
    const project = await createProject(server.url);
    const stored: Record<string, string> = {};
    for (const url of [
      v4.url('/literal'),
      v6.url('/literal'),
      `http://[::ffff:10.0.0.1]:${v4.port}/x`,
      `http://[64:ff9b::a00:1]:${v4.port}/x`,
      'http://169.254.169.254/latest/meta-data/',
      publicHost.url('/redirects'),
    ]) {
      const res = await project.api.post('/webhook-endpoints', { url, events: ['*'] });
      assert.equal(res.status, 201, res.text);
      stored[url] = res.body.id;
    }
    await server.close();
    server = await startServer(loadConfig({ ...env, WEBHOOK_ALLOW_PRIVATE: 'false' }));
    // The guard as configured, except that 127.0.0.2 counts as public (it plays the internet host).
    server.deps.outbound = createOutboundClient({ allowPrivate: false, dnsServers: [dns.address], permit: (address) => address === '127.0.0.2' });
    const again = { ...project, api: client(server.url, { key: project.secretKey }), publicApi: client(server.url, { key: project.publicKey }) };

    await again.publicApi.post('/v1/track', { email: uniqueEmail('stored'), event: 'invoice.overdue', data: { days: 14 } });
    for (const [url, id] of Object.entries(stored)) {
      const { messages, attempts } = await attemptsOf(again, id, 1);
      assert.equal(messages[0].status, 'pending', 'a refused attempt is a failure, retried later');
      if (url === publicHost.url('/redirects')) {
        assert.equal(attempts[0].statusCode, 302, 'the redirect is the answer: a failed attempt');
      } else {
        assert.equal(attempts[0].statusCode, null, url);
        assert.match(attempts[0].response, /^Refused: .*private or loopback address/, url);
      }
    }
    assert.equal(publicHost.received.length, 1);
    assert.deepEqual([v4.received.length, v6.received.length], [0, 0], 'nothing reached a loopback receiver, directly or by redirect');
  });
});
