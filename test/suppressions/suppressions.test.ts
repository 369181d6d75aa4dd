import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// The suppression list API (docs/decisions/sending.md): per project, cursor-paginated, every change audited.

const BODY = `<p>Hi {{ email }},</p>
<p>Your order #8812 has shipped. It left our warehouse in Rotterdam this morning and should reach you
within three working days. The carrier's tracking page updates a few hours after each scan.</p>
<ol><li>Walnut desk organiser × 1</li><li>Linen notebook, A5 × 3</li></ol>
<p>配送状況は追跡ページでご確認いただけます。 — שאלות? השיבו למייל הזה.</p>`;

describe('GET/POST/DELETE /suppressions (docs/decisions/sending.md)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let server: TestServer;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink({ reply: (to) => (to.startsWith('gone-') ? { code: 550, message: '5.1.1 User unknown' } : undefined) });
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url });
  });
  after(async () => {
    await server.close();
    await sink.close();
    await dns.close();
  });

  async function send(project: TestProject, from: string, to: string) {
    const res = await project.api.post('/v1/send', { to, from, subject: 'Your order has shipped', body: BODY });
    assert.equal(res.status, 200, res.text);
    return res.body.data.emails[0] as { email: string; contact: { id: string } };
  }

  async function auditOf(project: TestProject, action: string) {
    const res = await client(server.url).get(`/projects/${project.id}/audit-log?action=${action}`, { cookie: project.owner.cookie });
    assert.equal(res.status, 200, res.text);
    return res.body.data as Array<{ action: string; actor: { id: string; email: string } | null; details: any }>;
  }

  test('add with and without a reason: 201, the contact is unsubscribed, a second add keeps the first entry (200)', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const subscriber = uniqueEmail('Reader');
    const contact = await project.api.post('/contacts', { email: subscriber, subscribed: true });
    assert.equal(contact.status, 201, contact.text);

    const added = await project.api.post('/suppressions', { email: subscriber.toUpperCase() });
    assert.equal(added.status, 201, added.text);
    assert.deepEqual(Object.keys(added.body).sort(), ['createdAt', 'email', 'reason']);
    assert.equal(added.body.email, subscriber.toLowerCase());
    assert.equal(added.body.reason, 'MANUAL');
    assert.ok(!Number.isNaN(Date.parse(added.body.createdAt)));
    assert.equal((await project.api.get(`/contacts/${contact.body.id}`)).body.subscribed, false);
    const events = (await project.api.get(`/events?contactId=${contact.body.id}&name=contact.unsubscribed`)).body.data;
    assert.equal(events.length, 1);

    const again = await project.api.post('/suppressions', { email: subscriber, reason: 'COMPLAINT' });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, added.body, 'the first entry stays, reason and date included');

    const complaint = await project.api.post('/suppressions', { email: uniqueEmail('imported'), reason: 'COMPLAINT' });
    assert.equal(complaint.status, 201, complaint.text);
    assert.equal(complaint.body.reason, 'COMPLAINT');
    const bounce = await project.api.post('/suppressions', { email: uniqueEmail('imported'), reason: 'HARD_BOUNCE' });
    assert.equal(bounce.body.reason, 'HARD_BOUNCE');
  });

  test('list: newest first, search on the address, cursor pages with total on the first only', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const addresses: string[] = [];
    for (let i = 0; i < 7; i++) {
      const email = i % 2 === 0 ? `list-${i}-${Date.now()}@acme-retail.test` : uniqueEmail(`list-${i}`);
      addresses.push(email);
      assert.equal((await project.api.post('/suppressions', { email })).status, 201);
    }
    const all = await project.api.get('/suppressions');
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.total, 7);
    assert.equal(all.body.hasMore, false);
    assert.equal(all.body.cursor, null);
    assert.deepEqual(
      all.body.data.map((s: { email: string }) => s.email),
      [...addresses].reverse(),
    );

    const pages: string[] = [];
    let cursor: string | null = null;
    let first = true;
    do {
      const res: any = await project.api.get(`/suppressions?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(res.status, 200, res.text);
      assert.ok(res.body.data.length <= 3);
      assert.equal(res.body.total, first ? 7 : 0);
      pages.push(...res.body.data.map((s: { email: string }) => s.email));
      cursor = res.body.cursor;
      assert.equal(res.body.hasMore, cursor !== null);
      first = false;
    } while (cursor);
    assert.deepEqual(pages, [...addresses].reverse(), 'every entry once, in order');

    const found = await project.api.get('/suppressions?search=ACME-Retail');
    assert.equal(found.body.total, 4);
    assert.ok(found.body.data.every((s: { email: string }) => s.email.endsWith('@acme-retail.test')));
    const literal = await project.api.get(`/suppressions?search=${encodeURIComponent('list_%')}`);
    assert.equal(literal.body.total, 0, 'LIKE wildcards in search are matched literally');

    const forged = await project.api.get('/suppressions?cursor=bm90LWEtY3Vyc29y.AAAA');
    assert.equal(forged.status, 400, forged.text);
    assert.equal(forged.body.error.code, 'BAD_REQUEST');
  });

  test('a suppressed address gets a SUPPRESSED record; removed (204), a send goes out again and the contact stays as it was', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const to = uniqueEmail('back');
    assert.equal((await project.api.post('/suppressions', { email: to })).status, 201);
    const blocked = await send(project, from, to);
    const record = (await project.api.get(`/emails/${blocked.email}`)).body;
    assert.equal(record.status, 'SUPPRESSED');
    assert.match(record.error, /suppression list/);
    const suppressedEvent = (await project.api.get(`/events?contactId=${blocked.contact.id}&name=email.suppressed`)).body.data[0];
    assert.equal(suppressedEvent.data.reason, 'suppressed');

    const removed = await project.api.delete(`/suppressions/${encodeURIComponent(to)}`);
    assert.equal(removed.status, 204, removed.text);
    assert.equal((await project.api.get('/suppressions')).body.total, 0);
    const sent = await send(project, from, to);
    await waitForStatus(project.api, sent.email, ['DELIVERED']);
    assert.equal(sink.messages.filter((m) => m.envelope.to.includes(to)).length, 1);
    assert.equal((await project.api.get(`/contacts/${sent.contact.id}`)).body.subscribed, false, 'the subscription is left as it is');

    const gone = await project.api.delete(`/suppressions/${encodeURIComponent(to)}`);
    assert.equal(gone.status, 404, gone.text);
    assert.equal(gone.body.error.code, 'NOT_FOUND');
  });

  test('a hard bounce lists the address as HARD_BOUNCE with the record that bounced', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const to = uniqueEmail('gone');
    const sent = await send(project, from, to);
    await waitForStatus(project.api, sent.email, ['BOUNCED']);
    const list = await project.api.get(`/suppressions?search=${encodeURIComponent(to)}`);
    assert.deepEqual(
      list.body.data.map((s: any) => ({ email: s.email, reason: s.reason, emailId: s.emailId })),
      [{ email: to, reason: 'HARD_BOUNCE', emailId: sent.email }],
    );
  });

  test('projects do not see or change each other’s lists', async () => {
    const a = await projectWithSender(server.url, dns);
    const b = await projectWithSender(server.url, dns);
    const shared = uniqueEmail('shared');
    assert.equal((await a.project.api.post('/suppressions', { email: shared })).status, 201);
    assert.equal((await b.project.api.get('/suppressions')).body.total, 0);
    assert.equal((await b.project.api.get(`/suppressions?search=${encodeURIComponent(shared)}`)).body.data.length, 0);
    assert.equal((await b.project.api.delete(`/suppressions/${encodeURIComponent(shared)}`)).status, 404);
    assert.equal((await a.project.api.get('/suppressions')).body.total, 1, 'still on A’s list');
    const sent = await send(b.project, b.from, shared);
    await waitForStatus(b.project.api, sent.email, ['DELIVERED']);
    // A cursor of A's list is no key to B's: the listing stays B's.
    for (let i = 0; i < 3; i++) await a.project.api.post('/suppressions', { email: uniqueEmail('more') });
    const page = await a.project.api.get('/suppressions?limit=2');
    const other = await b.project.api.get(`/suppressions?cursor=${encodeURIComponent(page.body.cursor)}`);
    assert.equal(other.status, 200);
    assert.equal(other.body.data.length, 0);
  });

  test('sessions: MEMBER may list and add but not remove; OWNER may; every change is audited with its actor', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const member = await createAccount(server.url);
    const invite = await client(server.url).post(`/projects/${project.id}/members`, { email: member.email, role: 'MEMBER' }, { cookie: project.owner.cookie });
    assert.equal(invite.status, 201, invite.text);
    const asMember = client(server.url, { cookie: member.cookie, projectId: project.id });

    const byKey = uniqueEmail('key');
    assert.equal((await project.api.post('/suppressions', { email: byKey, reason: 'HARD_BOUNCE' })).status, 201);
    const byMember = uniqueEmail('member');
    assert.equal((await asMember.post('/suppressions', { email: byMember })).status, 201);
    assert.equal((await asMember.get('/suppressions')).body.total, 2);
    const refused = await asMember.delete(`/suppressions/${encodeURIComponent(byKey)}`);
    assert.equal(refused.status, 403, refused.text);
    assert.equal(refused.body.error.code, 'FORBIDDEN');
    assert.equal((await project.dashboard.delete(`/suppressions/${encodeURIComponent(byKey)}`)).status, 204);
    assert.equal((await project.api.delete(`/suppressions/${encodeURIComponent(byMember)}`)).status, 204);

    const added = await auditOf(project, 'suppression.added');
    assert.deepEqual(
      added.map((e) => ({ actor: e.actor?.email ?? null, ...e.details })),
      [
        { actor: member.email, email: byMember, reason: 'MANUAL', via: 'session' },
        { actor: null, email: byKey, reason: 'HARD_BOUNCE', via: 'secret_key' },
      ],
    );
    const removed = await auditOf(project, 'suppression.removed');
    assert.deepEqual(
      removed.map((e) => ({ actor: e.actor?.email ?? null, ...e.details })),
      [
        { actor: null, email: byMember, reason: 'MANUAL', via: 'secret_key' },
        { actor: project.owner.email, email: byKey, reason: 'HARD_BOUNCE', via: 'session' },
      ],
    );
    // A second add of a listed address and a refused removal change nothing and are not audited.
    await project.api.post('/suppressions', { email: byKey });
    await project.api.post('/suppressions', { email: byKey });
    assert.equal((await auditOf(project, 'suppression.added')).length, 3);
  });

  test('validation errors and authentication use the envelope', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const expect422 = async (res: { status: number; body: any; text: string }, field: string, code: string) => {
      assert.equal(res.status, 422, res.text);
      assert.equal(res.body.success, false);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      const error = res.body.error.errors.find((e: { field: string }) => e.field === field);
      assert.ok(error, `no error for ${field}: ${res.text}`);
      assert.equal(error.code, code, res.text);
      assert.ok(res.body.error.requestId);
    };
    await expect422(await project.api.post('/suppressions', {}), 'email', 'invalid_type');
    await expect422(await project.api.post('/suppressions', { email: 'not-an-address' }), 'email', 'invalid_string');
    await expect422(await project.api.post('/suppressions', { email: uniqueEmail(), reason: 'BOUNCED' }), 'reason', 'invalid_enum_value');
    await expect422(await project.api.delete('/suppressions/not-an-address'), 'email', 'invalid_string');
    const noKey = await client(server.url).get('/suppressions');
    assert.equal(noKey.status, 401, noKey.text);
    assert.equal(noKey.body.error.code, 'INVALID_API_KEY');
    const publicKey = await project.publicApi.get('/suppressions');
    assert.equal(publicKey.status, 401, publicKey.text);
    assert.equal((await project.api.get('/suppressions')).body.total, 0, 'nothing was added by the refused requests');
  });
});
