import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createProject } from '../kit/accounts.ts';
import { campaignBody, createCampaign, seedContacts, until, waitForCampaign } from '../kit/campaigns.ts';
import type { DnsServer } from '../kit/dns.ts';
import { projectWithSender } from '../kit/domains.ts';
import { startTestServerWithDns, type TestServer } from '../kit/server.ts';
import { type SmtpSink, startSmtpSink } from '../kit/smtp.ts';

const PUBLIC_URL = 'https://mail.example.test';
const LONG_LINE = `${'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt. '.repeat(30)}END`;
const BODY = `<h1>Your order #1042, {{name ?? "friend"}}</h1>
<p>Thank you for shopping with us. Two parcels left our warehouse in Reykjavík this morning and should reach you within three working days.</p>
<p>ご注文ありがとうございます。商品は本日発送されました。 — شكراً لطلبك، تم شحن الطلب اليوم. — Спасибо за заказ, посылка уже в пути.</p>
<table>
  <thead><tr><th>Item</th><th>Qty</th><th>Price</th></tr></thead>
  <tbody>
    <tr><td>Espresso beans, 1 kg</td><td>2</td><td>€38.00</td></tr>
    <tr><td>Burr grinder — 研磨機</td><td>1</td><td>€129.00</td></tr>
  </tbody>
</table>
<p>${LONG_LINE}</p>
<p>Track it <a href="https://shop.example.com/orders/1042?ref=mail">on our site</a>.</p>`;

describe('the rendered message and a contact’s emails (GET /emails/{id}/content, GET /contacts/{id}/emails)', () => {
  let server: TestServer;
  let dns: DnsServer;
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
    ({ server, dns } = await startTestServerWithDns({ SMTP_URL: sink.url, PUBLIC_URL }));
  });
  after(async () => {
    await server?.close();
    await sink?.close();
  });

  const delivered = async (api: { get: (path: string) => Promise<any> }, id: string) =>
    until(`email ${id} delivered`, async () => (await api.get(`/emails/${id}`)).body.status === 'DELIVERED', 60_000);

  test('a sent message: headers, subject, HTML and text as rendered for the recipient, without tracking; another project gets 404', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'orders');
    const sent = await project.api.post('/v1/send', {
      to: { name: 'Ólafur Arnalds', email: 'olafur@recipients.example.test' },
      from: { name: 'Fjord Coffee', email: from },
      reply: 'support@fjord.example',
      subject: 'Your order #1042 has shipped — 発送しました',
      body: BODY,
      data: { name: 'Ólafur' },
      headers: { 'X-Order': '1042' },
    });
    assert.equal(sent.status, 200, sent.text);
    const emailId: string = sent.body.data.emails[0].email;
    await delivered(project.api, emailId);
    const message = sink.messages.find((m) => m.envelope.to.includes('olafur@recipients.example.test') && m.envelope.from === from)!;
    assert.ok(message, 'the sink received the message');

    const res = await project.api.get(`/emails/${emailId}/content`);
    assert.equal(res.status, 200, res.text);
    const content = res.body;
    assert.equal(content.id, emailId);
    assert.deepEqual(content.from, { email: from, name: 'Fjord Coffee' });
    assert.deepEqual(content.to, { email: 'olafur@recipients.example.test', name: 'Ólafur Arnalds' });
    assert.equal(content.replyTo, 'support@fjord.example');
    assert.equal(content.subject, 'Your order #1042 has shipped — 発送しました');
    assert.equal(content.subject, message.parsed.subject);
    assert.equal(content.messageId, message.parsed.messageId);
    assert.deepEqual(content.headers, { 'X-Order': '1042' });
    assert.equal(content.rendered, 'stored');

    // Rendered for the recipient: the variable filled, every script and the table kept, the long line whole.
    assert.match(content.html, /<h1>Your order #1042, Ólafur<\/h1>/);
    for (const part of ['商品は本日発送されました', 'شكراً لطلبك', 'Спасибо за заказ', '<td>Burr grinder — 研磨機</td>', LONG_LINE])
      assert.ok(content.html.includes(part), part.slice(0, 40));
    // The link as written: click rewriting and the open pixel are added at sending, not stored.
    assert.match(content.html, /href="https:\/\/shop\.example\.com\/orders\/1042\?ref=mail"/);
    assert.doesNotMatch(content.html, /mail\.example\.test/);
    assert.match(String(message.parsed.html), /href="https:\/\/mail\.example\.test\//, 'the sent copy had its link rewritten');
    // The text alternative is sent exactly as stored.
    assert.equal(content.text.trim(), String(message.parsed.text).trim());
    for (const part of ['ólafur', '商品は本日発送されました', 'спасибо за заказ', 'espresso beans, 1 kg']) assert.ok(content.text.toLowerCase().includes(part), part);

    // The session of the dashboard reads it too; another project's key does not.
    assert.equal((await project.dashboard.get(`/emails/${emailId}/content`)).body.html, content.html);
    const other = await createProject(server.url);
    const foreign = await other.api.get(`/emails/${emailId}/content`);
    assert.equal(foreign.status, 404, foreign.text);
    assert.equal(foreign.body.error.code, 'NOT_FOUND');
    assert.equal((await project.api.get(`/emails/${crypto.randomUUID()}/content`)).status, 404);
    assert.equal((await project.api.get('/emails/not-a-uuid/content')).status, 422);
  });

  test('a campaign record, whose body is not stored, is rendered from the campaign for its contact', async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'news');
    await seedContacts(project.api, [{ email: 'ingrid@recipients.example.test', name: 'Ingrid', subscribed: true }]);
    const campaign = await createCampaign(
      project.api,
      campaignBody(from, { body: '<p>Hi {{name ?? "friend"}}, спасибо!</p><p><a href="https://example.com/spring">read</a></p>' }),
    );
    assert.equal((await project.api.post(`/campaigns/${campaign.id}/send`)).status, 200);
    await waitForCampaign(project.api, campaign.id, ['SENT'], 60_000);
    const contact = (await project.api.get('/contacts?search=ingrid')).body.data[0];
    const [record] = (await project.api.get(`/contacts/${contact.id}/emails`)).body.data;
    assert.equal(record.campaignId, campaign.id);
    const content = (await project.api.get(`/emails/${record.id}/content`)).body;
    assert.equal(content.rendered, 'now');
    assert.equal(content.subject, 'Hello Ingrid');
    assert.match(content.html, /<p>Hi Ingrid, спасибо!<\/p>/);
    assert.match(content.html, /href="https:\/\/example\.com\/spring"/);
    assert.match(content.text, /Hi Ingrid, спасибо!/);
  });

  test("a contact's emails: newest first, cursor-paged, only that contact's, 404 for another project", async () => {
    const { project, from } = await projectWithSender(server.url, dns, 'notices');
    const subjects = ['Welcome aboard', 'Ваш заказ принят', 'ご注文の確認', 'Your invoice for November', 'Password changed'];
    const ids: string[] = [];
    for (const subject of subjects) {
      const sent = await project.api.post('/v1/send', { to: 'hana@recipients.example.test', from, subject, body: `<p>${subject}</p>` });
      assert.equal(sent.status, 200, sent.text);
      ids.push(sent.body.data.emails[0].email);
    }
    const elsewhere = await project.api.post('/v1/send', { to: 'jun@recipients.example.test', from, subject: 'Not for Hana', body: '<p>x</p>' });
    const hana = ok200(await project.api.get('/contacts?search=hana')).data[0];

    const first = ok200(await project.api.get(`/contacts/${hana.id}/emails?limit=2`));
    assert.equal(first.total, 5);
    assert.equal(first.hasMore, true);
    const second = ok200(await project.api.get(`/contacts/${hana.id}/emails?limit=2&cursor=${encodeURIComponent(first.cursor)}`));
    assert.equal(second.total, 0, 'total only on the first page');
    const third = ok200(await project.api.get(`/contacts/${hana.id}/emails?limit=2&cursor=${encodeURIComponent(second.cursor)}`));
    assert.equal(third.hasMore, false);
    assert.equal(third.cursor, null);
    const listed = [...first.data, ...second.data, ...third.data];
    assert.deepEqual(
      listed.map((e: { id: string }) => e.id),
      [...ids].reverse(),
    );
    assert.deepEqual(
      listed.map((e: { subject: string }) => e.subject),
      [...subjects].reverse(),
    );
    assert.ok(listed.every((e: { contactId: string; to: string }) => e.contactId === hana.id && e.to === 'hana@recipients.example.test'));
    assert.ok(!listed.some((e: { id: string }) => e.id === elsewhere.body.data.emails[0].email));

    const tampered = await project.api.get(`/contacts/${hana.id}/emails?cursor=${encodeURIComponent(`${first.cursor}x`)}`);
    assert.equal(tampered.status, 400, tampered.text);
    const other = await createProject(server.url);
    assert.equal((await other.api.get(`/contacts/${hana.id}/emails`)).status, 404);
    assert.equal((await project.api.get(`/contacts/${crypto.randomUUID()}/emails`)).status, 404);
    const none = await other.api.post('/contacts', { email: 'lonely@recipients.example.test' });
    assert.deepEqual(ok200(await other.api.get(`/contacts/${none.body.id}/emails`)), { data: [], cursor: null, hasMore: false, total: 0 });
  });
});

function ok200(res: { status: number; text: string; body: any }) {
  assert.equal(res.status, 200, res.text);
  return res.body;
}
