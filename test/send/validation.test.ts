import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createProject, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { uniqueDomain, verifiedDomain } from '../kit/domains.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

describe('POST /v1/send refuses bad requests (the API reference /v1/send, Errors, Limits)', () => {
  let dns: DnsServer;
  let server: TestServer;
  let project: TestProject;
  let valid: Record<string, unknown>;
  before(async () => {
    dns = await startDnsServer();
    server = await startTestServer({ DNS_SERVERS: dns.address });
    project = await createProject(server.url);
    const domain = await verifiedDomain(project, dns);
    valid = { to: uniqueEmail('v'), from: `hi@${domain.domain}`, subject: 'Hello', body: '<p>Hi</p>' };
  });
  after(async () => {
    await server.close();
    await dns.close();
  });

  /** Sends `body` and expects 422 VALIDATION_ERROR naming `field` with `code`. */
  async function expect422(body: Record<string, unknown>, field: string, code?: string) {
    const res = await project.api.post('/v1/send', body);
    assert.equal(res.status, 422, res.text);
    assert.equal(res.body.success, false);
    assert.equal(res.body.error.code, 'VALIDATION_ERROR');
    const error = res.body.error.errors.find((e: { field: string }) => e.field === field);
    assert.ok(error, `no error for ${field}: ${res.text}`);
    if (code) assert.equal(error.code, code, res.text);
    return res;
  }

  const attachment = { filename: 'a.txt', content: Buffer.from('hello').toString('base64'), contentType: 'text/plain' };

  test('to: missing, bad address, bad array element, empty array', async () => {
    await expect422({ ...valid, to: undefined }, 'to', 'invalid_type');
    await expect422({ ...valid, to: 'not-an-email' }, 'to', 'invalid_string');
    await expect422({ ...valid, to: { name: 'X', email: 'bad' } }, 'to.email', 'invalid_string');
    await expect422({ ...valid, to: [uniqueEmail(), { email: 'bad' }] }, 'to.1.email', 'invalid_string');
    await expect422({ ...valid, to: [uniqueEmail(), 42] }, 'to.1', 'invalid_type');
    await expect422({ ...valid, to: [] }, 'to', 'too_small');
  });

  test('subject and body: required without a template; subject 1–998 characters without newlines', async () => {
    await expect422({ ...valid, subject: undefined }, 'subject', 'invalid_type');
    await expect422({ ...valid, body: undefined }, 'body', 'invalid_type');
    await expect422({ ...valid, subject: '' }, 'subject', 'too_small');
    await expect422({ ...valid, subject: 'x'.repeat(999) }, 'subject', 'too_big');
    await expect422({ ...valid, subject: 'two\nlines' }, 'subject', 'invalid_string');
    await expect422({ ...valid, body: '' }, 'body', 'too_small');
  });

  test('from: required without a template, must be an address; the deprecated name has no newline', async () => {
    await expect422({ ...valid, from: undefined }, 'from', 'invalid_type');
    await expect422({ ...valid, from: 'nope' }, 'from');
    await expect422({ ...valid, name: 'a\r\nBcc: x@y.test' }, 'name', 'invalid_string');
    await expect422({ ...valid, reply: 'not-an-email' }, 'reply', 'invalid_string');
    await expect422({ ...valid, template: 'not-a-uuid' }, 'template', 'invalid_string');
  });

  test('headers: no CR or LF in names or values, values ≤ 998, service headers refused', async () => {
    await expect422({ ...valid, headers: { 'X-Ok': 'a\r\nBcc: victim@x.test' } }, 'headers.X-Ok', 'invalid_string');
    await expect422({ ...valid, headers: { 'X-Bad\r\nName': 'v' } }, 'headers.X-Bad\r\nName', 'invalid_string');
    await expect422({ ...valid, headers: { 'X-Long': 'x'.repeat(999) } }, 'headers.X-Long', 'too_big');
    await expect422({ ...valid, headers: { 'X-Num': 5 } }, 'headers.X-Num', 'invalid_type');
    await expect422({ ...valid, headers: { Subject: 'forged' } }, 'headers.Subject', 'custom');
    const ok = await project.api.post('/v1/send', { ...valid, headers: { 'X-Long': 'x'.repeat(998) } });
    assert.equal(ok.status, 200, ok.text);
  });

  test('attachments: at most 10; filename, content (base64), contentType required; contentId when inline; 10 MB total', async () => {
    await expect422({ ...valid, attachments: Array.from({ length: 11 }, () => attachment) }, 'attachments', 'too_big');
    await expect422({ ...valid, attachments: [{ ...attachment, filename: undefined }] }, 'attachments.0.filename', 'invalid_type');
    await expect422({ ...valid, attachments: [{ ...attachment, filename: 'a"b.txt' }] }, 'attachments.0.filename', 'invalid_string');
    await expect422({ ...valid, attachments: [{ ...attachment, filename: 'a\nb.txt' }] }, 'attachments.0.filename', 'invalid_string');
    await expect422({ ...valid, attachments: [{ ...attachment, content: undefined }] }, 'attachments.0.content', 'invalid_type');
    await expect422({ ...valid, attachments: [{ ...attachment, content: 'not base64!' }] }, 'attachments.0.content', 'invalid_string');
    await expect422({ ...valid, attachments: [{ ...attachment, contentType: undefined }] }, 'attachments.0.contentType', 'invalid_type');
    await expect422({ ...valid, attachments: [{ ...attachment, contentType: 'nonsense' }] }, 'attachments.0.contentType', 'invalid_string');
    await expect422({ ...valid, attachments: [attachment, { ...attachment, disposition: 'inline' }] }, 'attachments.1.contentId', 'invalid_type');
    await expect422({ ...valid, attachments: [{ ...attachment, disposition: 'sideways' }] }, 'attachments.0.disposition', 'invalid_enum_value');
    const big = Buffer.alloc(5 * 1024 * 1024 + 1, 7).toString('base64');
    await expect422(
      {
        ...valid,
        attachments: [
          { ...attachment, content: big },
          { ...attachment, content: big },
        ],
      },
      'attachments',
      'too_big',
    );
  });

  test('data: values that are not primitives, null or one-off objects → 422 naming the key', async () => {
    await expect422({ ...valid, data: { nested: { a: 1 } } }, 'data.nested', 'invalid_type');
  });

  test('400: malformed JSON, broken inline template syntax (line and column), invalid Idempotency-Key', async () => {
    const malformed = await project.api.post('/v1/send', undefined, { rawBody: '{"to":', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400, malformed.text);
    const syntax = await project.api.post('/v1/send', { ...valid, body: '<p>\n{% if x %}unclosed</p>' });
    assert.equal(syntax.status, 400, syntax.text);
    assert.equal(syntax.body.error.code, 'TEMPLATE_SYNTAX_ERROR');
    assert.equal(typeof syntax.body.error.details.line, 'number');
    assert.equal(typeof syntax.body.error.details.column, 'number');
    const subject = await project.api.post('/v1/send', { ...valid, subject: 'Hi {{ name' });
    assert.equal(subject.status, 400, subject.text);
    const key = await project.api.post('/v1/send', valid, { headers: { 'idempotency-key': '' } });
    assert.equal(key.status, 400, key.text);
  });

  test('401 without a key or with the public key; 403 for an unverified sender domain', async () => {
    const none = await fetch(`${server.url}/v1/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(valid) });
    assert.equal(none.status, 401);
    const pub = await project.publicApi.post('/v1/send', valid);
    assert.equal(pub.status, 401);
    assert.equal(pub.body.error.code, 'INVALID_API_KEY');
    const unverified = await project.api.post('/v1/send', { ...valid, from: `x@${uniqueDomain()}` });
    assert.equal(unverified.status, 403, unverified.text);
    assert.equal(unverified.body.error.code, 'SENDER_DOMAIN_NOT_VERIFIED');
  });

  test('404 for a template of another project or none; nothing is recorded for a refused request', async () => {
    const other = await createProject(server.url);
    const otherDomain = await verifiedDomain(other, dns);
    const template = await other.api.post('/templates', { name: 't', subject: 's', body: '<p>b</p>', from: `x@${otherDomain.domain}` });
    assert.equal(template.status, 201, template.text);
    const to = uniqueEmail('404');
    const res = await project.api.post('/v1/send', { to, template: template.body.id });
    assert.equal(res.status, 404, res.text);
    assert.equal((await project.api.post('/v1/send', { to, template: randomUUID() })).status, 404);
    const lookup = await project.api.post('/contacts/lookup', { emails: [to] });
    assert.equal(lookup.body.data[0].exists, false);
  });

  test('409 when an Idempotency-Key is reused; the first request is not repeated', async () => {
    const key = randomUUID();
    const first = await project.api.post('/v1/send', valid, { headers: { 'idempotency-key': key } });
    assert.equal(first.status, 200, first.text);
    const second = await project.api.post('/v1/send', valid, { headers: { 'idempotency-key': key } });
    assert.equal(second.status, 409, second.text);
    assert.equal(second.body.error.code, 'IDEMPOTENCY_KEY_REUSED');
  });
});
