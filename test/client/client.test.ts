import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { createMailroomClient, MailroomError, retryAfterMs } from '../../packages/client/src/index.ts';
import { CLIENT_SCHEMA_PATH, SCHEMA_PATH } from '../../scripts/api-schema.ts';
import { uniqueEmail } from '../kit/accounts.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';

// The typed client package (packages/client) against the real server on the embedded database:
// typed calls, typed errors from the envelope, and retries that a proxy in front of the server
// provokes (a 429 with Retry-After, a 503 after the server already did the work).

const BODY = `<h1>Bienvenue, {{ email }}</h1>
<p>Your workspace is ready. Here is what you can do first:</p>
<ol><li>Invite your team</li><li>Import your contacts (CSV)</li><li>Verify a sending domain</li></ol>
<p>Привет! ようこそ! Our guides are at <a href="https://docs.example.com/start">docs.example.com</a>.</p>`;

type Fault = (request: http.IncomingMessage, body: Buffer) => { status: number; headers?: Record<string, string>; forward?: boolean } | undefined;

/**
 * A reverse proxy in front of the server: `fault` may answer instead of it (status, headers), or
 * after forwarding the request (`forward: true`: the server did the work, the client sees the fault).
 */
async function startProxy(target: string) {
  const seen: Array<{ method: string; path: string; idempotencyKey: string | undefined }> = [];
  let fault: Fault = () => undefined;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      seen.push({ method: req.method!, path: req.url!, idempotencyKey: req.headers['idempotency-key'] as string | undefined });
      const injected = fault(req, body);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => name !== 'host' && name !== 'content-length')) as Record<string, string>;
      if (injected && !injected.forward) {
        res
          .writeHead(injected.status, { 'content-type': 'application/json', ...injected.headers })
          .end(JSON.stringify({ success: false, error: { code: 'INJECTED', message: 'Injected by the test proxy', statusCode: injected.status } }));
        return;
      }
      const answer = await fetch(target + req.url, { method: req.method, headers, body: body.length ? body : undefined });
      const text = Buffer.from(await answer.arrayBuffer());
      if (injected) res.writeHead(injected.status, { 'content-type': 'text/plain', ...injected.headers }).end('upstream timed out');
      else res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    setFault: (next: Fault) => (fault = next),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

describe('the typed client package (packages/client)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  before(async () => {
    ({ server, dns } = await startTestServerWithDns());
    proxy = await startProxy(server.url);
  });
  after(async () => {
    await proxy.close();
    await server.close();
  });

  test('its schema is the one generated from /openapi.json (npm run gen:api writes both)', () => {
    assert.equal(readFileSync(CLIENT_SCHEMA_PATH, 'utf8'), readFileSync(SCHEMA_PATH, 'utf8'));
  });

  test('typed calls: send, read the record back, upsert and list contacts, track an event', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const mailroom = createMailroomClient({ baseUrl: server.url, apiKey: project.secretKey });
    const to = uniqueEmail('amelie');
    const { data: sent } = await mailroom.POST('/v1/send', { body: { to, from, subject: 'Bienvenue', body: BODY } });
    assert.equal(sent!.success, true);
    const emailId = sent!.data.emails[0]!.email;
    const { data: record } = await mailroom.GET('/emails/{id}', { params: { path: { id: emailId } } });
    assert.equal(record!.to, to);
    assert.equal(record!.subject, 'Bienvenue');

    const { data: contact } = await mailroom.POST('/contacts', { body: { email: uniqueEmail('ivan'), subscribed: true, data: { city: 'Санкт-Петербург' } } });
    assert.equal(contact!.data.city, 'Санкт-Петербург');
    const { data: page } = await mailroom.GET('/contacts', { params: { query: { limit: 10 } } });
    assert.ok(page!.data.some((c) => c.id === contact!.id));

    const tracker = createMailroomClient({ baseUrl: server.url, apiKey: project.publicKey });
    const { data: tracked } = await tracker.POST('/v1/track', { body: { email: to, event: 'workspace-created', data: { seats: 5 } } });
    assert.equal(tracked!.success, true);
  });

  test('typed errors: a 422 names its fields, a wrong key is a 401 with the envelope’s code', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const mailroom = createMailroomClient({ baseUrl: server.url, apiKey: project.secretKey });
    const invalid = await mailroom.POST('/contacts', { body: { email: 'not an address' } }).then(
      () => assert.fail('an invalid address was accepted'),
      (error: unknown) => error,
    );
    assert.ok(invalid instanceof MailroomError);
    assert.equal(invalid.status, 422);
    assert.equal(invalid.code, 'VALIDATION_ERROR');
    assert.equal(invalid.errors[0]!.field, 'email');
    assert.match(invalid.requestId ?? '', /^req_/);

    const stranger = createMailroomClient({ baseUrl: server.url, apiKey: 'sk_this_key_does_not_exist_000000000000' });
    await assert.rejects(stranger.GET('/contacts'), (error: unknown) => error instanceof MailroomError && error.status === 401 && error.code === 'INVALID_API_KEY');

    const unreachable = createMailroomClient({ baseUrl: 'http://127.0.0.1:9', apiKey: project.secretKey, retries: 0 });
    await assert.rejects(unreachable.GET('/contacts'), (error: unknown) => error instanceof MailroomError && error.code === 'NETWORK_ERROR' && error.status === 0);
  });

  test('a 429 is retried after its Retry-After; a 503 after the server did the work is retried with the same Idempotency-Key, which the server refuses as performed: one send', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const retries: Array<{ attempt: number; delayMs: number; status: number | undefined }> = [];
    const mailroom = createMailroomClient({
      baseUrl: proxy.url,
      apiKey: project.secretKey,
      maxDelayMs: 2_000,
      onRetry: ({ attempt, delayMs, status }) => retries.push({ attempt, delayMs, status }),
    });

    let refused = 0;
    proxy.setFault((req) => (req.url!.startsWith('/contacts') && refused++ === 0 ? { status: 429, headers: { 'retry-after': '1' } } : undefined));
    const { data: page } = await mailroom.GET('/contacts', { params: { query: { limit: 5 } } });
    assert.ok(Array.isArray(page!.data));
    assert.deepEqual(retries, [{ attempt: 1, delayMs: 1000, status: 429 }], 'waited what Retry-After said');

    retries.length = 0;
    proxy.seen.length = 0;
    let failed = 0;
    proxy.setFault((req) => (req.url === '/v1/send' && failed++ === 0 ? { status: 503, forward: true } : undefined));
    const to = uniqueEmail('once');
    const lost = await mailroom.POST('/v1/send', { body: { to, from, subject: 'Exactly once', body: BODY } }).then(
      () => assert.fail('the retry of a performed send must not send again'),
      (error: unknown) => error,
    );
    const sends = proxy.seen.filter((s) => s.path === '/v1/send');
    assert.equal(sends.length, 2, 'the first answer was lost, the call was made again');
    assert.ok(sends[0]!.idempotencyKey, 'the client gave the call an Idempotency-Key');
    assert.equal(sends[1]!.idempotencyKey, sends[0]!.idempotencyKey, 'the retry carries the same key');
    assert.equal(retries[0]!.status, 503);
    // The server refuses the repeated key and says how the first request ended: it was performed.
    assert.ok(lost instanceof MailroomError);
    assert.equal(lost.code, 'IDEMPOTENCY_KEY_REUSED');
    assert.equal(lost.performed, true);
    assert.equal((lost.details as { originalStatusCode: number }).originalStatusCode, 200);
    const direct = createMailroomClient({ baseUrl: server.url, apiKey: project.secretKey });
    const { data: found } = await direct.GET('/contacts', { params: { query: { search: to } } });
    assert.equal(found!.data.length, 1);
    const { data: records } = await direct.GET('/contacts/{id}/emails', { params: { path: { id: found!.data[0]!.id } } });
    assert.equal(records!.data.length, 1, 'one record: the send was performed once');

    proxy.seen.length = 0;
    proxy.setFault((req) => (req.url === '/contacts' && req.method === 'POST' ? { status: 503 } : undefined));
    await assert.rejects(mailroom.POST('/contacts', { body: { email: uniqueEmail('never-twice') } }), (error: unknown) => error instanceof MailroomError && error.status === 503);
    assert.equal(proxy.seen.filter((s) => s.path === '/contacts').length, 1, 'a POST the server does not make idempotent is not repeated after a 5xx');
    proxy.setFault(() => undefined);
  });

  test('Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    assert.equal(retryAfterMs('7', now), 7000);
    assert.equal(retryAfterMs('Fri, 27 Nov 2026 10:00:30 GMT', now), 30_000);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(null, now), undefined);
  });
});
