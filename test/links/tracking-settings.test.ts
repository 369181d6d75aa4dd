import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAccount, type TestProject, uniqueEmail } from '../kit/accounts.ts';
import { type DnsServer, startDnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { waitForStatus } from '../kit/emails.ts';
import { client } from '../kit/http.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

// Open and click tracking per project (docs/decisions/sending.md): `tracking: { opens, clicks }`, each all,
// marketing or off; defaults opens marketing, clicks all; HEADLESS never tracked.

const PUBLIC_URL = 'https://track.example.test';
const BODY = `<html><body>
<p>Hi {{ email }},</p>
<p>Thanks for your order. We have started packing it and will send the tracking number as soon as the
carrier collects the parcel, usually the next working day.</p>
<table><tr><td>Order</td><td>#55102</td></tr><tr><td>Total</td><td>€ 129.90</td></tr></table>
<p>See <a href="https://shop.example.com/orders/55102">your order</a> or read our
<a href='https://shop.example.com/help/returns?lang=en&amp;src=mail'>returns policy</a>.</p>
<p>注文の詳細はアカウントページでご確認ください。</p>
</body></html>`;

type Seen = { pixel: boolean; clicks: boolean; links: boolean; listUnsubscribe: boolean };

describe('tracking settings per project (docs/decisions/sending.md)', () => {
  let dns: DnsServer;
  let sink: SmtpSink;
  let server: TestServer;
  before(async () => {
    dns = await startDnsServer();
    sink = await startSmtpSink();
    server = await startTestServer({ DNS_SERVERS: dns.address, SMTP_URL: sink.url, PUBLIC_URL });
  });
  after(async () => {
    await server.close();
    await sink.close();
    await dns.close();
  });

  /** Sends one message of `type` and reports what tracking it carried as received. */
  async function received(project: TestProject, from: string, type: 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS'): Promise<Seen> {
    const template = await project.api.post('/templates', { name: `${type} ${Math.random()}`, subject: 'Your order #55102', body: BODY, from, type });
    assert.equal(template.status, 201, template.text);
    const to = uniqueEmail(type.toLowerCase());
    const res = await project.api.post('/v1/send', { to, template: template.body.id, subscribed: true });
    assert.equal(res.status, 200, res.text);
    await waitForStatus(project.api, res.body.data.emails[0].email, ['DELIVERED']);
    const message = sink.messages.find((m) => m.envelope.to.includes(to))!;
    const html = String(message.parsed.html);
    return {
      pixel: html.includes(`${PUBLIC_URL}/t/o/`),
      clicks: html.includes(`${PUBLIC_URL}/t/c/`),
      links: html.includes('https://shop.example.com/orders/55102'),
      listUnsubscribe: message.raw.toString().includes('\r\nList-Unsubscribe:'),
    };
  }

  const patch = (project: TestProject, body: unknown, cookie = project.owner.cookie) => client(server.url).patch(`/users/@me/projects/${project.id}`, body, { cookie });

  test('defaults: opens on MARKETING mail only, clicks on all; shown on every Project answer', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    const listed = await client(server.url).get('/users/@me/projects', { cookie: project.owner.cookie });
    assert.deepEqual(listed.body.data.find((p: { id: string }) => p.id === project.id).tracking, { opens: 'marketing', clicks: 'all' });
    const created = await client(server.url).post('/users/@me/projects', { name: 'Second' }, { cookie: project.owner.cookie });
    assert.deepEqual(created.body.tracking, { opens: 'marketing', clicks: 'all' });

    assert.deepEqual(await received(project, from, 'TRANSACTIONAL'), { pixel: false, clicks: true, links: false, listUnsubscribe: false });
    assert.deepEqual(await received(project, from, 'MARKETING'), { pixel: true, clicks: true, links: false, listUnsubscribe: true });
    assert.deepEqual(await received(project, from, 'HEADLESS'), { pixel: false, clicks: false, links: true, listUnsubscribe: false });
    // An inline /v1/send is TRANSACTIONAL: no pixel either.
    const to = uniqueEmail('inline');
    const res = await project.api.post('/v1/send', { to, from, subject: 'Password reset', body: '<p>Reset it <a href="https://app.example.com/reset?t=1">here</a>.</p>' });
    await waitForStatus(project.api, res.body.data.emails[0].email, ['DELIVERED']);
    const html = String(sink.messages.find((m) => m.envelope.to.includes(to))!.parsed.html);
    assert.ok(!html.includes('/t/o/'), html);
    assert.ok(html.includes('/t/c/'), html);
  });

  test('each setting applies to the next message built: all, marketing, off; a partial change keeps the other field', async () => {
    const { project, from } = await projectWithSender(server.url, dns);
    let res = await patch(project, { tracking: { opens: 'all' } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.tracking, { opens: 'all', clicks: 'all' });
    assert.deepEqual(await received(project, from, 'TRANSACTIONAL'), { pixel: true, clicks: true, links: false, listUnsubscribe: false });

    res = await patch(project, { tracking: { clicks: 'marketing' } });
    assert.deepEqual(res.body.tracking, { opens: 'all', clicks: 'marketing' });
    assert.deepEqual(await received(project, from, 'TRANSACTIONAL'), { pixel: true, clicks: false, links: true, listUnsubscribe: false });
    assert.deepEqual(await received(project, from, 'MARKETING'), { pixel: true, clicks: true, links: false, listUnsubscribe: true });

    res = await patch(project, { tracking: { opens: 'off', clicks: 'off' } });
    assert.deepEqual(res.body.tracking, { opens: 'off', clicks: 'off' });
    assert.deepEqual(await received(project, from, 'MARKETING'), { pixel: false, clicks: false, links: true, listUnsubscribe: true }, 'unsubscribing is not tracking');

    res = await patch(project, { tracking: { opens: 'all', clicks: 'all' } });
    assert.deepEqual(await received(project, from, 'HEADLESS'), { pixel: false, clicks: false, links: true, listUnsubscribe: false }, 'HEADLESS is never tracked');
    const listed = await client(server.url).get('/users/@me/projects', { cookie: project.owner.cookie });
    assert.deepEqual(listed.body.data.find((p: { id: string }) => p.id === project.id).tracking, { opens: 'all', clicks: 'all' });
  });

  test('OWNER and ADMIN may change it, MEMBER is refused; each change is audited, a no-op is not', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const admin = await createAccount(server.url);
    const member = await createAccount(server.url);
    for (const [account, role] of [
      [admin, 'ADMIN'],
      [member, 'MEMBER'],
    ] as const) {
      const added = await client(server.url).post(`/projects/${project.id}/members`, { email: account.email, role }, { cookie: project.owner.cookie });
      assert.equal(added.status, 201, added.text);
    }
    const refused = await patch(project, { tracking: { opens: 'all' } }, member.cookie);
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await patch(project, { tracking: { opens: 'off' } }, admin.cookie)).status, 200);
    assert.equal((await patch(project, { tracking: { opens: 'off' } }, project.owner.cookie)).status, 200, 'the same value again');
    assert.equal((await patch(project, { name: 'Renamed shop' })).status, 200);
    assert.equal((await patch(project, { tracking: { clicks: 'marketing' } })).status, 200);

    const log = await client(server.url).get(`/projects/${project.id}/audit-log?action=project.tracking_changed`, { cookie: project.owner.cookie });
    assert.equal(log.status, 200, log.text);
    assert.deepEqual(
      log.body.data.map((e: any) => ({ actor: e.actor.email, ...e.details })),
      [
        { actor: project.owner.email, from: { opens: 'off', clicks: 'all' }, to: { opens: 'off', clicks: 'marketing' } },
        { actor: admin.email, from: { opens: 'marketing', clicks: 'all' }, to: { opens: 'off', clicks: 'all' } },
      ],
    );
  });

  test('a value outside all | marketing | off is a 422 naming the field, and changes nothing', async () => {
    const { project } = await projectWithSender(server.url, dns);
    const res = await patch(project, { tracking: { opens: 'none' } });
    assert.equal(res.status, 422, res.text);
    const error = res.body.error.errors.find((e: { field: string }) => e.field === 'tracking.opens');
    assert.ok(error, res.text);
    assert.equal(error.code, 'invalid_enum_value');
    const listed = await client(server.url).get('/users/@me/projects', { cookie: project.owner.cookie });
    assert.deepEqual(listed.body.data.find((p: { id: string }) => p.id === project.id).tracking, { opens: 'marketing', clicks: 'all' });
  });
});
