import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createOutboundClient, forbiddenReason, OutboundError } from '../../src/outbound/index.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';

type Listener = { server: Server; port: number; hits: string[] };

async function listen(host: string, respond: (path: string) => { status: number; location?: string; body?: string }): Promise<Listener> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const answer = respond(req.url ?? '');
    res.writeHead(answer.status, answer.location ? { location: answer.location } : {}).end(answer.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port, hits };
}

async function refusal(promise: Promise<unknown>): Promise<OutboundError> {
  const error = await promise.then(
    () => assert.fail('the call went through'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof OutboundError, String(error));
  return error;
}

describe('outbound guard: addresses classified with ipaddr.js', () => {
  test('loopback, private, link-local, unique-local, CGNAT, multicast, unspecified and reserved addresses are refused', () => {
    const refused = [
      '127.0.0.1',
      '127.255.0.9',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '198.18.0.1',
      '240.0.0.1',
      '::',
      '::1',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
    ];
    for (const address of refused) assert.ok(forbiddenReason(address), address);
  });

  test('IPv6 forms that embed or route to a private IPv4 address are refused: mapped, compatible, NAT64, 6to4, Teredo, site-local', () => {
    const cases: Array<[string, RegExp]> = [
      ['::ffff:10.0.0.1', /private \(IPv4-mapped 10\.0\.0\.1\)/],
      ['::ffff:127.0.0.1', /loopback/],
      ['::7f00:1', /loopback \(IPv4-compatible 127\.0\.0\.1\)/],
      ['::a9fe:a9fe', /linkLocal \(IPv4-compatible 169\.254\.169\.254\)/],
      ['64:ff9b::a00:1', /private \(NAT64 10\.0\.0\.1\)/],
      ['64:ff9b::7f00:1', /loopback \(NAT64/],
      ['64:ff9b:1::1', /local-use NAT64/],
      ['2002:7f00:1::', /loopback \(6to4 127\.0\.0\.1\)/],
      ['2002:c0a8:101::1', /private \(6to4 192\.168\.1\.1\)/],
      ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /teredo/],
      ['fec0::1', /SiteLocal/],
    ];
    for (const [address, reason] of cases) assert.match(forbiddenReason(address) ?? 'allowed', reason, address);
  });

  test('public addresses, including those forms carrying a public IPv4 address, are allowed', () => {
    for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1']) {
      assert.equal(forbiddenReason(address), undefined, address);
    }
  });
});

describe('outbound guard: real calls (real HTTP servers, the test DNS server)', () => {
  let dns: DnsServer;
  let v4: Listener;
  let v6: Listener;
  let other: Listener;
  before(async () => {
    dns = await startDnsServer({ ttl: 0 });
    v4 = await listen('127.0.0.1', (path) => (path.startsWith('/hop') ? { status: 302, location: decodeURIComponent(path.slice(5)) } : { status: 200, body: 'reached' }));
    v6 = await listen('::1', () => ({ status: 200, body: 'reached v6' }));
    other = await listen('127.0.0.2', () => ({ status: 200, body: 'reached the second host' }));
  });
  after(async () => {
    for (const l of [v4, v6, other]) {
      l.server.closeAllConnections();
      await new Promise((resolve) => l.server.close(resolve));
    }
    await dns.close();
  });

  const guarded = (permit?: (address: string) => boolean) => createOutboundClient({ allowPrivate: false, dnsServers: [dns.address], permit });

  test('literal loopback, mapped, compatible, NAT64, 6to4 and metadata addresses are refused before any connection', async () => {
    const client = guarded();
    const urls = [
      `http://127.0.0.1:${v4.port}/`,
      `http://[::1]:${v6.port}/`,
      `http://[::ffff:10.0.0.1]:${v4.port}/`,
      `http://[::ffff:127.0.0.1]:${v4.port}/`,
      `http://[::7f00:1]:${v4.port}/`,
      `http://[64:ff9b::a00:1]:${v4.port}/`,
      `http://[2002:7f00:1::]:${v4.port}/`,
      'http://169.254.169.254/latest/meta-data/',
      `http://localhost:${v4.port}/`,
      `http://0x7f000001:${v4.port}/`,
      `http://2130706433:${v4.port}/`,
    ];
    for (const url of urls) {
      const error = await refusal(client.request({ url, method: 'POST', body: '{}' }));
      assert.equal(error.kind, 'refused', `${url}: ${error.message}`);
      assert.match(error.message, /private or loopback address/, url);
    }
    assert.deepEqual([v4.hits, v6.hits], [[], []]);
  });

  test('a public name whose DNS answer is private (A 10.x, AAAA ::1, or a mix with a public one) is refused', async () => {
    dns.set('intranet.example.test', 'A', ['10.1.2.3']);
    dns.set('loop6.example.test', 'AAAA', ['::1']);
    dns.set('mixed.example.test', 'A', ['93.184.215.14', '127.0.0.1']);
    const client = guarded();
    for (const host of ['intranet.example.test', 'loop6.example.test', 'mixed.example.test']) {
      const error = await refusal(client.request({ url: `http://${host}:${v4.port}/`, method: 'GET' }));
      assert.equal(error.kind, 'refused', error.message);
      assert.match(error.message, new RegExp(`${host} resolves to`));
    }
    assert.deepEqual(v4.hits, []);
  });

  test('each redirect target is checked again: a permitted host redirecting to a private one is refused', async () => {
    dns.set('public.example.test', 'A', ['127.0.0.1']);
    dns.set('inside.example.test', 'A', ['127.0.0.2']);
    // 127.0.0.1 stands for a public host here; 127.0.0.2 stays private.
    const client = guarded((address) => address === '127.0.0.1');
    const reached = await client.request({ url: `http://public.example.test:${v4.port}/plain`, method: 'GET' });
    assert.deepEqual([reached.status, reached.body, reached.address], [200, 'reached', '127.0.0.1']);
    for (const target of [`http://127.0.0.2:${other.port}/`, `http://inside.example.test:${other.port}/`, `http://[::ffff:7f00:2]:${other.port}/`]) {
      const error = await refusal(client.request({ url: `http://public.example.test:${v4.port}/hop/${encodeURIComponent(target)}`, method: 'POST', body: 'x' }));
      assert.equal(error.kind, 'refused', error.message);
    }
    assert.deepEqual(other.hits, []);
  });

  test('the name is looked up once per hop and the connection goes to the checked address (no second lookup to rebind)', async () => {
    dns.set('once.example.test', 'A', ['127.0.0.1']);
    const before = dns.queries.length;
    const client = guarded((address) => address === '127.0.0.1');
    const answer = await client.request({ url: `http://once.example.test:${v4.port}/x`, method: 'GET' });
    assert.equal(answer.address, '127.0.0.1');
    const asked = dns.queries.slice(before).filter((q) => q.name === 'once.example.test');
    assert.deepEqual(asked.map((q) => q.type).sort(), ['A', 'AAAA']);
  });

  test('at most N redirects are followed; WEBHOOK_ALLOW_PRIVATE lets loopback through, IPv6 included', async () => {
    const open = createOutboundClient({ allowPrivate: true, dnsServers: [dns.address] });
    const chain = (n: number): string => (n === 0 ? `http://[::1]:${v6.port}/end` : `http://127.0.0.1:${v4.port}/hop/${encodeURIComponent(chain(n - 1))}`);
    const followed = await open.request({ url: chain(2), method: 'GET', maxRedirects: 2 });
    assert.deepEqual([followed.status, followed.body, followed.redirects, followed.address], [200, 'reached v6', 2, '::1']);
    const error = await refusal(open.request({ url: chain(3), method: 'GET', maxRedirects: 2 }));
    assert.equal(error.kind, 'redirects');
    const local = await open.request({ url: `http://localhost:${v4.port}/plain`, method: 'GET' });
    assert.equal(local.body, 'reached');
  });
});
